#if canImport(Glibc)
@preconcurrency import Glibc
#endif
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

    /// Whether Ctrl-C was pressed (or, after `armTermination()`, SIGTERM came) since the last `arm()`.
    package static var requested: Bool { sw_interrupted() != 0 }

    private static let terminationInstalled: Bool = {
        sw_install_sigterm_handler()
        return true
    }()

    /// SIGTERM (`timeout`, a CI job cancelled) stops the work as Ctrl-C does, so that what it
    /// writes at its end is still written; the caller then ends by the signal (`endByTermination`).
    package static func armTermination() { _ = terminationInstalled }

    /// Whether the stop came from SIGTERM.
    package static var terminated: Bool { sw_interrupt_signal() == SIGTERM }

    /// Ends the process by SIGTERM, as it would have ended without the handler (exit 143 if
    /// the signal cannot be raised).
    package static func endByTermination() -> Never {
        sw_end_by_signal(SIGTERM)
        exit(143)
    }
}
