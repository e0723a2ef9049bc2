import Foundation

/// Fixed-width text tables for the terminal and for docs/benchmarks.md.
enum BenchTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                // The first column is a label (left-aligned); the others are figures.
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    static func figure(_ value: Double, decimals: Int = 0) -> String {
        String(format: "%.\(decimals)f", value)
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        return String(format: ms < 1 ? "%.3f" : "%.2f", ms)
    }

    /// 100000 → "100 000", as the issue writes population sizes.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(" ") }
            out.append(digit)
        }
        return out
    }
}
