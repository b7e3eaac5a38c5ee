import CBuildInfo

/// What this binary is: the version from the top-level VERSION file (compiled in by CBuildInfo)
/// and the commit it was built from ("unknown" when the build did not go through the Makefile).
package enum BuildInfo {
    /// The VERSION file's first word, e.g. `0.9.0`.
    package static let version: String = firstWord(String(cString: swurl_version_file()))

    /// The short commit hash, or "unknown".
    package static let commit: String = firstWord(String(cString: swurl_build_commit()))

    /// The `--version` header line: `swurl 0.9.0 (commit abc1234)`.
    package static var versionLine: String { "swurl \(version) (commit \(commit))" }

    static func firstWord(_ text: String) -> String {
        let word = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first
        return word.map(String.init) ?? "unknown"
    }
}
