@preconcurrency import CSupport

/// Ctrl-C during an exchange: the handler is installed once per process and only sets a flag that
/// the engine polls (exit 130); `arm()` clears the flag, so each exchange of a REPL or batch starts
/// uninterrupted.
package enum Interrupt {
    private static let installed: Bool = {
        sw_install_sigint_handler()
        return true
    }()

    /// Installs the handler (the first time) and clears an earlier Ctrl-C.
    package static func arm() {
        _ = installed
        sw_clear_interrupted()
    }

    /// Whether Ctrl-C was pressed since the last `arm()`.
    package static var requested: Bool { sw_interrupted() != 0 }
}
