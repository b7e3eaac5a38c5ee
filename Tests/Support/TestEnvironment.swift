import SwurlCLI
import SwurlCore

/// An in-memory `Environment` for running swurl in-process.
package struct TestEnvironment {
    package let environment: Environment
    package let stdout: MemorySink
    package let stderr: MemorySink

    package init(stdin: String? = nil, stdinIsTerminal: Bool = true, stdoutIsTerminal: Bool = false,
                variables: [String: String] = [:], directory: String = "/tmp") {
        stdout = MemorySink()
        stderr = MemorySink()
        environment = Environment(stdin: MemorySource(stdin ?? ""), stdout: stdout, stderr: stderr,
                                  stdinIsTerminal: stdin == nil ? stdinIsTerminal : false,
                                  stdoutIsTerminal: stdoutIsTerminal, stderrIsTerminal: false,
                                  variables: variables, currentDirectory: directory)
    }

    /// Runs swurl in-process; returns the exit status.
    package func run(_ arguments: [String]) -> Int32 {
        Swurl.main(arguments: arguments, environment: environment)
    }
}
