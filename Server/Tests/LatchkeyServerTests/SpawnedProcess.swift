import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process started with `posix_spawn`, its standard output and error piped back: the
/// `latchkey` command and the tools the tests run.
///
/// Not Foundation's `Process`: on Linux its `run()` (Swift 6.3.1's swift-corelibs-foundation)
/// lists `/proc/self/fd` copying a fixed 256 bytes of each entry, which reads past the end of a
/// mapping now and then and crashes the whole test process (swift-corelibs-foundation #5472).
/// Here the child closes every descriptor it inherited but the standard three (`closefrom`,
/// glibc 2.34) before it runs.
final class SpawnedProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let pid: pid_t
    /// The read ends of the child's standard output and standard error (with `mergeErrors`,
    /// both go to `output` and `errors` reads nothing).
    let output: FileHandle
    let errors: FileHandle
    /// The exit status once the child has been reaped: its code, or 128 + the signal that ended it.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`, in `directory` when given.
    /// - Throws: `Failure` when the pipes cannot be made or the child cannot be started.
    init(_ executable: String, _ arguments: [String], directory: String? = nil,
         environment: [String: String] = ProcessInfo.processInfo.environment, mergeErrors: Bool = false) throws {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        guard pipe(&err) == 0 else {
            for descriptor in out { close(descriptor) }
            throw Failure(description: "pipe: errno \(errno)")
        }
        // Close-on-exec, so no other program the tests start holds them open (a child started here
        // closes them anyway).
        for descriptor in out + err { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, mergeErrors ? out[1] : err[1], 2)
        guard let addClosefrom = Self.addClosefrom, addClosefrom(&actions, 3) == 0,
              directory.map({ directory in Self.addChdir.map { $0(&actions, directory) == 0 } ?? false }) ?? true else {
            for descriptor in out + err { close(descriptor) }
            throw Failure(description: "this C library cannot close a child's inherited descriptors or set its directory")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child = pid_t()
        let started = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(out[1])
        close(err[1])
        guard started == 0 else {
            close(out[0])
            close(err[0])
            throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(started)))")
        }
        pid = child
        output = FileHandle(fileDescriptor: out[0], closeOnDealloc: true)
        errors = FileHandle(fileDescriptor: err[0], closeOnDealloc: true)
    }

    deinit { if isRunning { kill(pid, SIGKILL); waitUntilExit() } }

    /// Whether the child still runs (it is reaped when it has ended).
    var isRunning: Bool { reap(blocking: false) == nil }

    /// The exit status, once the child has ended (nil before).
    var terminationStatus: Int32? { status.withLock { $0 } }

    /// Waits for the child to end; answers its exit status.
    @discardableResult func waitUntilExit() -> Int32 {
        while true {
            if let status = reap(blocking: true) { return status }
            usleep(1_000)   // reaped by another caller, its status not yet kept
        }
    }

    /// Sends `signal` (SIGTERM by default).
    func signal(_ signal: Int32 = SIGTERM) { kill(pid, signal) }

    /// Standard output and error read to their ends, then the exit status: for a command that ends.
    func finish() -> (status: Int32, output: String, errors: String) {
        let errorText = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
        let outputText = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        return (waitUntilExit(), outputText, errorText)
    }

    private func reap(blocking: Bool) -> Int32? {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, blocking ? 0 : WNOHANG) == pid else { return status.withLock { $0 } }
        // WIFEXITED: no signal in the low seven bits; the code is the next byte.
        let value = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        status.withLock { $0 = value }
        return value
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29) and `…_addclosefrom_np` (2.34), which
    /// Swift's Glibc module does not declare.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addChdir = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }
    private static let addClosefrom = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddClosefrom.self) }
}
