import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starting a benchmark's helper process (the loopback server in a process of its own, so
/// that the client's CPU and memory figures are its own).
public enum ChildProcess {
    /// Starts this benchmark's own executable with `arguments` (its server mode), with
    /// `stdin` and `stdout` as the child's standard input and output, and closes the
    /// child's ends here: the child's stdin ends when `stdin`'s write end closes.
    ///
    /// The pipes are made close-on-exec first, so that no later child (another server, a
    /// client process) holds a copy of this child's stdin, which would then never end; the
    /// child's own copies (`dup2` to 0 and 1) do not inherit the flag.
    public static func spawnSelf(arguments: [String], stdin: Pipe, stdout: Pipe) -> Result<pid_t, POSIXError> {
        // `/proc/self/exe` rather than argv[0], which may be relative or a name on PATH.
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        for handle in [
            stdin.fileHandleForReading, stdin.fileHandleForWriting, stdout.fileHandleForReading,
            stdout.fileHandleForWriting,
        ] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        let result = spawn(executable, arguments: arguments, stdin: stdin, stdout: stdout)
        try? stdin.fileHandleForReading.close()
        try? stdout.fileHandleForWriting.close()
        return result
    }

    /// Starts `executable` with `arguments`, with `stdin` and `stdout` as its standard input
    /// and output; the parent's ends of both pipes are closed in the child. Returns the
    /// child's pid, or the error `posix_spawn` gave.
    public static func spawn(_ executable: String, arguments: [String], stdin: Pipe, stdout: Pipe)
        -> Result<pid_t, POSIXError>
    {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.fileHandleForReading.fileDescriptor, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.fileHandleForWriting.fileDescriptor, 1)
        for descriptor in [
            stdin.fileHandleForReading.fileDescriptor, stdin.fileHandleForWriting.fileDescriptor,
            stdout.fileHandleForReading.fileDescriptor, stdout.fileHandleForWriting.fileDescriptor,
        ] {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv + [nil], environ)
        guard status == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL)) }
        return .success(pid)
    }
}
