#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files that hold secrets (the pepper, the CA key, the database, the SDK's file storage), created
/// owner-only from the first byte: `open(2)` with `O_CREAT | O_EXCL` and mode 0600 in directories
/// made 0700, instead of creating a file and narrowing its mode afterwards (a window in which
/// anyone on the machine could open it). `O_EXCL` also means two processes starting together never
/// both write the same file.
public enum PrivateFile {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var description: String { "\(path): \(String(cString: strerror(errno)))" }
        /// The file existed already (another process created it first).
        public var exists: Bool { errno == EEXIST }
    }

    /// Creates the directories of `path` that are missing, each 0700.
    public static func makeDirectories(for path: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var current = parent.hasPrefix("/") ? "" : "."
        for component in parent.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST { throw Failure(path: current, errno: errno) }
        }
    }

    /// Creates `path` (and its missing directories) with mode 0600 and writes `contents`; throws
    /// (`exists`) when the file is already there.
    public static func create(_ path: String, contents: Data) throws {
        try makeDirectories(for: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(path: path, errno: errno) }
        defer { close(descriptor) }
        try contents.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(path: path, errno: errno)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw Failure(path: path, errno: errno) }
    }

    /// Publishes `contents` at `path` only if nothing is there, atomically: a complete 0600 file
    /// beside it, hard-linked into place (`link(2)` fails when the name exists), so a reader never
    /// sees a partial file and of processes racing exactly one wins. False when `path` existed.
    public static func publish(_ path: String, contents: Data) throws -> Bool {
        let temporary = path + ".tmp-" + UUID().uuidString
        try create(temporary, contents: contents)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw Failure(path: path, errno: errno)
        }
        return true
    }

    /// Replaces `path` atomically with `contents`: a new 0600 file beside it, renamed over it.
    public static func replace(_ path: String, contents: Data) throws {
        let temporary = path + ".tmp-" + UUID().uuidString
        try create(temporary, contents: contents)
        guard rename(temporary, path) == 0 else {
            let failure = Failure(path: path, errno: errno)
            unlink(temporary)
            throw failure
        }
    }
}
