/// The ANSI colours swurl uses; readable on dark and light backgrounds (no black or white).
public struct Theme: Sendable {
    public var reset = "\u{1B}[0m"
    public var headerName = "\u{1B}[36m"
    public var version = "\u{1B}[34m"
    public var method = "\u{1B}[32;1m"
    public var target = "\u{1B}[36;4m"
    public var statusOK = "\u{1B}[32;1m"
    public var statusRedirect = "\u{1B}[33;1m"
    public var statusError = "\u{1B}[31;1m"
    public var jsonKey = "\u{1B}[34;1m"
    public var jsonString = "\u{1B}[32m"
    public var jsonNumber = "\u{1B}[36m"
    public var jsonLiteral = "\u{1B}[35m"
    public var note = "\u{1B}[33m"

    public init() {}

    /// The colour for a status code's class.
    public func status(_ code: Int) -> String {
        switch code {
        case 200..<300: return statusOK
        case 300..<400: return statusRedirect
        default: return statusError
        }
    }
}
