import SwurlCLI
import SwurlCore

/// An in-memory `Environment` for running swurl in-process.
package struct TestEnvironment {
    package let environment: Environment
    package let stdout: MemorySink
    package let stderr: MemorySink

    /// - Parameter stdinIsFile: stdin is read as a regular file of its size (`< file`), not a pipe.
    package init(stdin: String? = nil, stdinIsTerminal: Bool = true, stdoutIsTerminal: Bool = false,
                variables: [String: String] = [:], directory: String = "/tmp", stdinIsFile: Bool = false) {
        stdout = MemorySink()
        stderr = MemorySink()
        var environment = Environment(stdin: MemorySource(stdin ?? ""), stdout: stdout, stderr: stderr,
                                      stdinIsTerminal: stdin == nil ? stdinIsTerminal : false,
                                      stdoutIsTerminal: stdoutIsTerminal, stderrIsTerminal: false,
                                      variables: variables, currentDirectory: directory)
        if stdinIsFile { environment.stdinFileSize = Int64((stdin ?? "").utf8.count) }
        self.environment = environment
    }

    /// Runs swurl in-process; returns the exit status.
    package func run(_ arguments: [String]) -> Int32 {
        Swurl.main(arguments: arguments, environment: environment)
    }
}
