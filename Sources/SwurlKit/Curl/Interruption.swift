@preconcurrency import CShims

/// Ctrl-C as a flag: an async-signal-safe SIGINT handler sets it, transfers and prompts poll it
/// (sigaction(2)). The flag stays set until `rearm()`.
package enum Interruption {
    /// Installs the SIGINT handler (once per process is enough).
    package static func install() { sw_install_sigint_handler() }

    /// Whether Ctrl-C was pressed since the handler was installed or last re-armed.
    package static var requested: Bool { sw_interrupted() != 0 }

    /// Clears the flag, so the next exchange (in a REPL or batch) is not aborted by an old Ctrl-C.
    package static func rearm() { sw_clear_interrupted() }
}
