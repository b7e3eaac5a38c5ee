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

    /// Installs the handler (the first time), keeping a Ctrl-C that already came.
    package static func install() { _ = installed }

    /// Whether Ctrl-C was pressed (or, after `armTermination()`, SIGTERM or SIGHUP came) since the last `arm()`.
    package static var requested: Bool { sw_interrupted() != 0 }

    /// SIGTERM (`timeout`, a CI job cancelled) and SIGHUP (a closed terminal) stop the work as
    /// Ctrl-C does, so that what it writes at its end is still written; the caller then ends by
    /// the signal (`settleTermination`). Again after a settle (a REPL's next line).
    package static func armTermination() { sw_install_sigterm_handler() }

    /// At the end of a run that Ctrl-C stopped (exit 130), its outputs written: ends the process
    /// by SIGINT, as curl's ends, so a shell script looping over swurl stops as well (a shell
    /// says 130 either way). Does nothing unless SIGINT came and swurl's handler has it.
    package static func endByInterrupt() { sw_end_by_interrupt() }

    /// Ctrl-\ (SIGQUIT) ends the process by the signal, as curl's (the Swift runtime's crash
    /// reporter had it: a crash report, a wait for a key, the transfer going on), unless the
    /// parent set it to be ignored.
    package static func quitEndsTheProcess() { sw_default_sigquit() }

    /// Once the outputs are written: SIGTERM's and SIGHUP's default actions back, and the process
    /// ended by one that came meanwhile (none is lost between a last check and the exit).
    package static func settleTermination() { sw_settle_termination() }
}
