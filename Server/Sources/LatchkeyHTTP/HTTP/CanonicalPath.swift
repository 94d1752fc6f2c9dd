import Hummingbird
import LatchkeyCore
import LatchkeyContract
import LatchkeyDomain

/// Answers 404 for a path that is not in its canonical form, before any route sees it: an empty
/// segment (`//`, a trailing `/`), a dot segment (`.`, `..`) or a percent-encoded unreserved
/// character (`%75` for `u`, RFC 3986 §6.2.2.2). The router would otherwise serve
/// `/v1/enrollment/users/` and `//v1/auth/login/pin` like their canonical paths; each operation's
/// rules come from the operation it was routed to (`OperationPolicy`), and refusing other spellings
/// as well keeps one spelling per operation for proofs (`htu`), logs, metrics and rate limits.
package struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard Self.isCanonical(path) else { throw DomainError(.notFound, message: "There is no route \(path).") }
        return try await next(request, context)
    }

    /// Whether `path` is `/` or `/`-separated non-empty segments, none of them `.` or `..`, with no
    /// unreserved character percent-encoded.
    package static func isCanonical(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        for segment in bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.isEmpty || segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return false }
            var index = segment.startIndex
            while let percent = segment[index...].firstIndex(of: UInt8(ascii: "%")) {
                let hex = segment[(percent + 1)...].prefix(2)
                if hex.count == 2, let byte = UInt8(String(decoding: hex, as: UTF8.self), radix: 16), isUnreserved(byte) { return false }
                index = percent + 1
            }
        }
        return true
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
