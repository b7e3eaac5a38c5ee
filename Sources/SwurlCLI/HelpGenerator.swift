import SwurlCore
/// `--help`, generated from `OptionTable`.
package enum HelpGenerator {
    /// The request-item grammar, shared by `--help` and the man page.
    static let itemHelp: [(String, String)] = [
        ("Header:value", "Request header. 'Header:' removes it (libcurl's defaults too), 'Header;' sends it empty, 'Header:@file' reads the value from a file."),
        ("name==value", "Query-string parameter; 'name==@file' reads the value from a file."),
        ("field=value", "String field; 'field=@file' reads the value from a text file."),
        ("field:=json", "Typed JSON field (number, bool, null, array, object); 'field:=@file' reads JSON from a file."),
        ("field@path", "File field, sent as multipart (with --form or --multipart). Add ';type=MIME' or ';filename=NAME'; 'field@-' reads stdin (held when it ends within 1 MiB, so a 307 or --retry can send it again)."),
        ("@path", "Send a file as the whole body, streamed; Content-Type from its extension. '@-' sends stdin."),
        ("a[b][c]=x", "Nested keys: a[]=x appends, a[3]=x sets an index, []:=1 makes a top-level array. A backslash escapes a separator or bracket, and a digit: a[\\5]=x makes 5 a key, not an index. A name given twice is sent twice in a form, an array in JSON."),
    ]

    package static let summary = "swurl — a friendly, scriptable HTTP client with in-handshake certificate pinning"

    /// The options `swurl --help` shows (the rest: `--help all`, `swurl help COMMAND`, man swurl).
    static let mostUsed: [Option] = [.json, .form, .verbose, .headers, .body, .output, .download,
                                     .follow, .auth, .checkStatus, .timeout, .pinPubkey, .offline, .session, .curl]

    /// `swurl --help`: one screen (at most 60 lines): usage, commands, the grammar in brief, the
    /// most used options, and where the rest is.
    package static func short() -> String {
        var s = "\(summary)\n\n"
        s += "Usage: swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]\n"
        s += "       swurl COMMAND ... (one of: " + CommandTable.words.joined(separator: ", ") + ")\n\n"
        s += "Commands:\n"
        for command in CommandTable.all { s += entry(label(command), command.summary + ".") }
        s += "\nRequest items: Header:value name==query field=text field:=json field@file @file\n"
        s += "  nested keys: user[name]=Ann tags[]=a; a backslash escapes a separator.\n"
        s += "\nMost used options:\n"
        for option in mostUsed {
            guard let spec = OptionTable.all.first(where: { $0.option == option }) else { continue }
            s += entry(spec.signature, firstSentence(spec.help))
        }
        s += "\nMore: swurl help COMMAND (its options), swurl --help all (everything), man swurl\n"
        s += "Exit status: 0 ok; 1 transport; 2 timeout; 3/4/5 HTTP errors (--check-status);\n"
        s += "  6 redirects; 7 TLS; 8 rejected; 64 usage; 65 bad data; 66 input; 130 Ctrl-C\n"
        return s
    }

    /// `swurl help COMMAND`, `swurl COMMAND --help`: the command's usage and every option it takes,
    /// under the group's name alone: which other commands take an option is `--help all`'s business.
    static func help(for command: any SwurlCommand.Type) -> String {
        var s = "\(command.usage)\n  \(command.summary).\n"
        if !command.actions.isEmpty {
            s += "\nActions:\n"
            for action in command.actions { s += entry(action.word, action.summary + ".") }
        }
        // An option that means something else to this command (`--json`: the report's format
        // for certs, reach and cache) is shown with that meaning, among the output options.
        for group in OptionGroup.allCases {
            let specs = OptionTable.documented.filter {
                (hasOtherMeaning($0, for: command.name) && $0.option == .json ? .output : $0.group) == group && $0.commands.contains(command.name)
            }
            guard !specs.isEmpty else { continue }
            s += "\n\(group.rawValue):\n"
            for spec in specs { s += entry(spec.signature, optionHelp(spec, for: command.name)) }
        }
        s += "\nExit status: swurl --help all or man swurl.\n"
        return s
    }

    /// Whether `spec` means something else to `command` than to a request (`ConfigFile.otherMeaning`).
    static func hasOtherMeaning(_ spec: OptionSpec, for command: CommandName) -> Bool {
        ConfigFile.otherMeaning[spec.option]?[command] != nil
    }

    /// An option's help for `command`: its own, or the meaning it has there (the help, the man
    /// page's command sections and the completions say the same).
    static func optionHelp(_ spec: OptionSpec, for command: CommandName) -> String {
        ConfigFile.otherMeaning[spec.option]?[command] ?? spec.help
    }

    /// How a command is called, as the commands' lists show it: its word (`certs`), or for the
    /// two without one how they start (`URL`, `-d URL`: `swurl request URL` is no command line).
    static func label(_ command: any SwurlCommand.Type) -> String {
        command.word ?? (command.name == .download ? "-d URL" : "URL")
    }

    /// The first sentence of a help text (up to the first ". ").
    static func firstSentence(_ text: String) -> String {
        guard let end = text.rangeOfText(". ") else { return text }
        return String(text[..<end.lowerBound]) + "."
    }

    /// `swurl --help all`: the whole help text.
    package static func help() -> String {
        var s = "\(summary)\n\n"
        for (i, command) in CommandTable.all.enumerated() {
            s += (i == 0 ? "Usage: " : "       ") + command.usage + "\n"
        }
        s += "\nCommands:\n"
        for command in CommandTable.all { s += entry(label(command), command.summary + ".") }
        s += "\n"
        s += "  METHOD  any word in capitals, or a known method in any case (post); default GET without a body, POST with one.\n"
        s += "  URL     http://, https://, or :PORT/path for localhost; no scheme means http:// (--default-scheme).\n\n"
        s += "Request items:\n"
        for (syntax, text) in itemHelp { s += entry(syntax, text) }
        for group in OptionGroup.allCases {
            let specs = OptionTable.documented.filter { $0.group == group }
            guard !specs.isEmpty else { continue }
            s += "\n\(group.heading):\n"
            for spec in specs { s += entry(spec.signature, spec.documentation) }
        }
        s += "\nExit status:\n"
        for row in ExitStatus.documentation {
            s += entry(row.codes.map { String($0.rawValue) }.joined(separator: "/"), row.meaning)
        }
        return s
    }

    private static func entry(_ left: String, _ text: String) -> String {
        let indent = 26
        var s = "  " + left
        let lines = wrap(text, width: 78 - indent)
        if s.count + 2 > indent {
            s += "\n" + String(repeating: " ", count: indent)
        } else {
            s += String(repeating: " ", count: indent - s.count)
        }
        s += lines.joined(separator: "\n" + String(repeating: " ", count: indent)) + "\n"
        return s
    }

    /// Greedy word wrap.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
