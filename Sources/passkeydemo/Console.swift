import Foundation

/// What the interactive demo draws and asks on the terminal: plain ANSI, no library.
struct Console: Sendable {
    let keyboard: Keyboard

    /// Clears the screen and writes `lines`.
    func screen(_ lines: [String]) {
        write("\u{1B}[2J\u{1B}[H" + lines.joined(separator: "\n") + "\n")
    }

    func say(_ line: String) {
        write(line + "\n")
    }

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A list to pick from with the arrow keys and Enter, or an item's number; nil on Esc or q.
    func choose(_ title: [String], items: [String], footer: String) async -> Int? {
        var selected = 0
        while true {
            let rows = items.enumerated().map { index, item in
                (index == selected ? "› " : "  ") + "\(index + 1). \(item)"
            }
            screen(title + [""] + rows + ["", footer])
            switch await keyboard.next() {
            case .up: selected = (selected + items.count - 1) % items.count
            case .down: selected = (selected + 1) % items.count
            case .enter: return selected
            case .escape, .quit, .character("q"): return nil
            case .character(let c):
                if let number = c.wholeNumberValue, (1...items.count).contains(number) { return number - 1 }
            default: break
            }
        }
    }

    /// One line typed by the person, echoed (or shown as dots when `secret`); nil on Esc.
    func readLine(_ prompt: String, secret: Bool = false) async -> String? {
        write(prompt)
        var text = ""
        while true {
            switch await keyboard.next() {
            case .enter:
                write("\n")
                return text
            case .escape, .quit:
                write("\n")
                return nil
            case .backspace:
                guard !text.isEmpty else { continue }
                text.removeLast()
                write("\u{8} \u{8}")
            case .character(let c):
                text.append(c)
                write(secret ? "•" : String(c))
            default: continue
            }
        }
    }

    /// What the person did at an AutoFill username field.
    enum FieldOutcome: Sendable, Equatable {
        /// Filled in the suggestion at this index of `suggestions`.
        case picked(Int)
        /// Pressed the button beside the field.
        case button
        /// Left the page (Esc or Ctrl-C).
        case left
    }

    /// A username field the person types in, with the AutoFill suggestions under it filtered by
    /// what is typed (a prefix, ignoring case); `button` is a button beside the field, pressed with Tab.
    func autofill(_ title: [String], suggestions: [String], button: String?) async -> FieldOutcome {
        var typed = ""
        var selected = 0
        let footer =
            "Type to filter, ↑/↓ and Enter to fill in" + (button.map { ", Tab for “\($0)”" } ?? "")
            + ", Esc to leave the page"
        while true {
            let shown = suggestions.indices.filter { suggestions[$0].lowercased().hasPrefix(typed.lowercased()) }
            selected = shown.isEmpty ? 0 : min(selected, shown.count - 1)
            let rows =
                shown.isEmpty
                ? ["  (no suggestion starts with “\(typed)”)"]
                : shown.enumerated().map { row, index in
                    (row == selected ? "› " : "  ") + "\(row + 1). \(suggestions[index])"
                }
            let buttonRow = button.map { ["", "[ \($0) ]"] } ?? []
            screen(title + ["Username: \(typed)▏", "", "AutoFill suggestions:"] + rows + buttonRow + ["", footer])
            switch await keyboard.next() {
            case .up where !shown.isEmpty: selected = (selected + shown.count - 1) % shown.count
            case .down where !shown.isEmpty: selected = (selected + 1) % shown.count
            case .enter where !shown.isEmpty: return .picked(shown[selected])
            case .tab where button != nil: return .button
            case .escape, .quit: return .left
            case .backspace where !typed.isEmpty: typed.removeLast()
            case .character(let c): typed.append(c)
            default: break
            }
        }
    }

    /// Waits for Enter (true) or Esc (false); other keys are ignored, Ctrl-C counts as Esc.
    func confirm() async -> Bool {
        while true {
            switch await keyboard.next() {
            case .enter: return true
            case .escape, .quit: return false
            default: continue
            }
        }
    }

    /// Waits for one of `keys` (characters), Enter or Esc.
    func key(among keys: Set<Character>) async -> Key {
        while true {
            let key = await keyboard.next()
            switch key {
            case .enter, .escape, .quit: return key
            case .character(let c) where keys.contains(c): return key
            default: continue
            }
        }
    }
}
