import CZlib
import Foundation
import LatchkeyCore

/// Passwords too common to accept, whatever the issuer's other rules say (ASVS V6.2.11, NIST
/// SP 800-63B §3.1.1.2): the lists Django's `CommonPasswordValidator` ships, compared as Django
/// does, lower-cased and trimmed. Only the server holds the list (the bundled resource
/// `common-passwords.txt.gz`, 60 KB; 160 KB once inflated, `Scripts/update-common-passwords`); the
/// SDK checks the issuer's other rules before sending and learns of this one from the server's 419.
public enum CommonPasswords {
    /// The bundled list is missing or damaged: the server was installed without its resource bundle.
    public struct MissingResource: Error, CustomStringConvertible {
        public var description: String {
            "The resource common-passwords.txt.gz of LatchkeyDomain is missing or damaged: install the server "
                + "with its resource bundle, the directory LatchkeyServer_LatchkeyDomain.resources beside the "
                + "latchkey binary (docs/configuration.md, \"Deployment\")."
        }
    }

    /// Read and inflated once per process.
    static let loaded: Result<Set<Substring>, MissingResource> = {
        guard let url = Bundle.module.url(forResource: "common-passwords.txt", withExtension: "gz"),
              let compressed = try? Data(contentsOf: url), let text = gunzip(compressed) else {
            return .failure(MissingResource())
        }
        return .success(Set(String(decoding: text, as: UTF8.self).split(separator: "\n")))
    }()

    /// Loads the list now: `buildApplication` calls it, so a server installed without its resource
    /// bundle stops at start-up with this error instead of accepting every password.
    /// - Throws: `MissingResource`.
    public static func load() throws(MissingResource) { _ = try loaded.get() }

    package static var set: Set<Substring> {
        switch loaded {
        case .success(let set): set
        case .failure(let missing): fatalError(missing.description)   // unreachable after `load()` at start-up
        }
    }

    /// Whether `password` is on the list.
    public static func contains(_ password: String) -> Bool {
        set.contains(Substring(password.trimmingCharacters(in: Blanks.spaces).lowercased()))
    }

    /// The bytes of a gzip stream, or nil when it is not one.
    static func gunzip(_ data: Data) -> Data? {
        var stream = z_stream()
        // 16 + MAX_WBITS: a gzip header and trailer around the deflate stream.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = Data()
        var input = [UInt8](data)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = input.count
        return input.withUnsafeMutableBufferPointer { inputBuffer -> Data? in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> Int32 in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if status == Z_STREAM_END { return output }
                guard status == Z_OK else { return nil }
            }
        }
    }
}

extension IssuerSettings {
    /// The issuer's password rules (419) and, unless `rejectCommonPasswords` is off, the common
    /// password list (419): every path that sets a new password checks it here.
    ///
    /// - Throws: `DomainError` 419 (`password_rules`) naming `field`.
    package func validateNewPassword(_ password: String?, field: String) throws(DomainError) {
        try self.password.validate(password, field: field)
        if rejectCommonPasswords, let password, !password.isEmpty, CommonPasswords.contains(password) {
            throw .passwordRules("This password is on lists of commonly used passwords; choose one that is harder to guess.",
                                 field: field)
        }
    }
}
