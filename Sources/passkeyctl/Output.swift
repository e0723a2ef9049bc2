import Foundation

/// Where passkeyctl writes: results on standard output, sentences about failures on standard error.
enum Output {
    static func json(_ value: JSON) {
        print(value.text())
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Columns padded to their widest cell, two spaces apart.
    static func table(_ header: [String], _ rows: [[String]], indent: String = "") -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = indent
            for (i, cell) in cells.enumerated() {
                text += i == cells.count - 1 ? cell : cell.padding(toLength: widths[i] + 2, withPad: " ", startingAt: 0)
            }
            return text
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
