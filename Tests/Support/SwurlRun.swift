import Foundation

/// The result of running the built `swurl` binary.
package struct SwurlResult {
    package var status: Int32
    package var stdout: Data
    package var stderr: String
    package var text: String { String(decoding: stdout, as: UTF8.self) }

    package init(status: Int32, stdout: Data, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// stdout parsed as JSON (what httpbin echoed).
    package func json() throws -> [String: Any] {
        guard let obj = try JSONSerialization.jsonObject(with: stdout) as? [String: Any] else {
            throw TestServerError("stdout is not a JSON object: \(text.prefix(500))")
        }
        return obj
    }
}

/// Runs the built binary as a user would, with stdout and stderr captured (so neither is a
/// terminal) and stdin from `stdin` or `stdinFile` (neither: /dev/null).
package func runSwurl(_ arguments: [String], stdin: Data? = nil, stdinFile: String? = nil,
                     environment: [String: String] = [:], directory: String? = nil) throws -> SwurlResult {
    var env = ProcessInfo.processInfo.environment
    for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_COLOR"] {
        env.removeValue(forKey: key)
    }
    for (k, v) in environment { env[k] = v }
    let r = try runProcess(TestPaths.binary, arguments, directory: directory, environment: env,
                           stdin: stdin, stdinFile: stdinFile, check: false)
    return SwurlResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
}

/// Starts swurl with `args` in `directory`, sends it `signal` (`SIGTERM`, `SIGHUP`) once an
/// output's temporary file (`.NAME.swurl-…`) exists and then, by what the test needs, once
/// swurl has opened the `holdingLock` file (it waits for the lock), once `readyFile` (relative to
/// `directory`) holds bytes, or else half a second more has passed (the request is on its way);
/// returns how it ended ("-15": by SIGTERM; "0": normally). With
/// `stdoutUnread`, stdout is a pipe nobody reads, and swurl starts with SIGALRM blocked (as a
/// parent may leave it); with `parentIgnores`, it starts with `signal` ignored (nohup); with
/// `holdingLock`, another process holds that file's lock (`flock`) meanwhile; with `stderrFile`,
/// swurl's stderr goes to that file.
package func runSwurlUntilSignalled(_ args: [String], in directory: String, signal: String = "SIGTERM", stdoutUnread: Bool = false,
                                    parentIgnores: Bool = false, holdingLock: String? = nil, readyFile: String? = nil,
                                    stderrFile: String? = nil) throws -> String {
    let script = """
    import fcntl, glob, json, os, signal, subprocess, sys, time
    binary, where, args, unread, lock, sig, ignore, ready, errfile = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4] == "1", sys.argv[5], getattr(signal, sys.argv[6]), sys.argv[7] == "1", sys.argv[8], sys.argv[9]
    if lock:
        held = open(lock, "a")
        fcntl.flock(held, fcntl.LOCK_EX)
    def pre():
        if unread: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        if ignore: signal.signal(sig, signal.SIG_IGN)
    p = subprocess.Popen([binary] + args, cwd=where, stdin=subprocess.DEVNULL, stderr=open(errfile, "wb") if errfile else subprocess.DEVNULL,
                         stdout=subprocess.PIPE if unread else subprocess.DEVNULL, preexec_fn=pre)
    deadline = time.time() + 30
    while time.time() < deadline and not glob.glob(os.path.join(where, ".*.swurl-*")):
        time.sleep(0.02)
    def has_lock_open():
        target = os.path.realpath(lock)
        try:
            fds = os.listdir("/proc/%d/fd" % p.pid)
        except OSError:
            return True  # it ended: nothing to wait for
        for fd in fds:
            try:
                if os.readlink("/proc/%d/fd/%s" % (p.pid, fd)) == target:
                    return True
            except OSError:
                pass
        return False
    def has_bytes():
        try:
            return os.path.getsize(os.path.join(where, ready)) > 0
        except OSError:
            return p.poll() is not None
    if lock or ready:
        while time.time() < deadline and not (has_lock_open() if lock else has_bytes()):
            time.sleep(0.02)
        time.sleep(0.2)
    else:
        time.sleep(0.5)
    p.send_signal(sig)
    print(p.wait(timeout=60))
    """
    let json = String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)
    let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, directory, json, stdoutUnread ? "1" : "0",
                                                holdingLock ?? "", signal, parentIgnores ? "1" : "0", readyFile ?? "", stderrFile ?? ""])
    return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Runs `swurl ARGS` (in `directory`) whose request carries the scripted server's `hold=HOLD`:
/// once the server has the request (it writes HOLD.got) `meanwhile` runs, then the server is let
/// answer (HOLD is made). Stdout and stderr as `runSwurl` gives them.
package func runSwurlWhileHeld(_ args: [String], hold: String, directory: String? = nil,
                               meanwhile: () throws -> Void) throws -> SwurlResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: TestPaths.binary)
    p.arguments = args
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var env = ProcessInfo.processInfo.environment
    for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_COLOR"] {
        env.removeValue(forKey: key)
    }
    p.environment = env
    // Stdout to a file, stderr to a pipe read to its end: no pipe fills while another is read.
    let outPath = TestPaths.temporaryDirectory() + "/stdout"
    FileManager.default.createFile(atPath: outPath, contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let errors = Pipe()
    p.standardOutput = out
    p.standardError = errors
    p.standardInput = FileHandle.nullDevice
    try p.run()
    try out.close()
    // The hold is made even when `meanwhile` fails, so that swurl ends.
    defer { FileManager.default.createFile(atPath: hold, contents: nil) }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: hold + ".got"), p.isRunning, Date() < deadline { usleep(20_000) }
    try meanwhile()
    FileManager.default.createFile(atPath: hold, contents: nil)
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return SwurlResult(status: p.terminationStatus, stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), stderr: stderr)
}

/// The signal that ended `p`, nil when it exited: Ctrl-C ends swurl by SIGINT once its outputs
/// are written (a shell says 130), as it ends curl.
package func endingSignal(_ p: Process) -> Int32? {
    p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil
}

/// Runs a program to its end; stdout and stderr go through files, so neither can fill a pipe
/// and stall the child.
/// - Throws: when it cannot start, or (with `check`) when it exits non-zero.
package func runProcess(_ executable: String, _ arguments: [String], directory: String? = nil,
                       environment: [String: String]? = nil, stdin: Data? = nil, stdinFile: String? = nil,
                       check: Bool = true) throws -> (status: Int32, stdout: Data, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let dir = TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let outPath = dir + "/out", errPath = dir + "/err"
    FileManager.default.createFile(atPath: outPath, contents: nil)
    FileManager.default.createFile(atPath: errPath, contents: nil)
    p.standardOutput = FileHandle(forWritingAtPath: outPath)
    p.standardError = FileHandle(forWritingAtPath: errPath)
    var inPipe: Pipe?
    if let stdinFile {
        p.standardInput = FileHandle(forReadingAtPath: stdinFile)
    } else if stdin != nil {
        inPipe = Pipe()
        p.standardInput = inPipe
    } else {
        p.standardInput = FileHandle.nullDevice
    }
    try p.run()
    if let inPipe, let stdin {
        // A child may exit before it reads (a refused option): the write then raises SIGPIPE,
        // which would end the whole test process. The writer is a thread of its own with
        // SIGPIPE blocked, so the write fails with EPIPE instead, and the signal left pending
        // goes with the thread.
        let h = inPipe.fileHandleForWriting
        let writer = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? h.write(contentsOf: stdin)
            try? h.close()
        }
        writer.start()
    }
    waitForExit(p)
    let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    if check && p.terminationStatus != 0 {
        throw TestServerError("\(executable) failed with \(p.terminationStatus): \(err)")
    }
    return (p.terminationStatus, out, err)
}

/// Waits until `p` has exited, at most 2 ms after it did. `Process.waitUntilExit()` alone runs
/// the run loop in 50 ms slices on Linux and sees the exit only at the end of one: every process
/// the suite ran waited 25 ms on average for nothing (a test class that runs 500 took 37 s
/// instead of 13). A process still running after `limit` seconds is killed (SIGKILL), so a
/// test waiting on one that hangs fails on its status instead of stalling its class until CI
/// gives up.
package func waitForExit(_ p: Process, limit: Double = 300) {
    var pause: UInt32 = 100
    let deadline = Date().addingTimeInterval(limit)
    while p.isRunning {
        if Date() > deadline {
            FileHandle.standardError.write(Data("waitForExit: \(p.executableURL?.path ?? "?") still ran after \(Int(limit)) s; killed\n".utf8))
            kill(p.processIdentifier, SIGKILL)
            break
        }
        usleep(pause)
        pause = min(pause * 2, 2_000)
    }
    p.waitUntilExit()
}

/// Waits (up to 30 s) until process `pid` catches `signal` (its handler is installed, by
/// /proc/PID/status's SigCgt), so a signal sent next is not taken by the default action.
package func waitForHandler(of signal: Int32, in pid: Int32) {
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
            .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        if caught & (1 << UInt64(signal - 1)) != 0 { return }
        usleep(10_000)
    }
}

/// Runs a Python snippet with the test venv's interpreter; returns stdout.
package func runPython(_ code: String, arguments: [String] = []) throws -> String {
    String(decoding: try runProcess(TestPaths.venv + "/bin/python3", ["-c", code] + arguments).stdout, as: UTF8.self)
}

/// The body of a GET as the curl CLI receives it, to compare swurl's output against.
package func fetchWithCurl(_ url: String, arguments: [String] = []) throws -> Data {
    try runProcess("/usr/bin/curl", ["-sS", "--compressed"] + arguments + [url]).stdout
}
