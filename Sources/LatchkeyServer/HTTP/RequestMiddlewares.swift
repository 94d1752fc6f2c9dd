import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging

/// Gives each request an id (`X-Request-ID`, kept from the client when sane), logs one line per
/// request with method, path (never the query string), status and duration, and no secrets.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let incoming = request.headers[.requestID].flatMap { $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } ? $0 : nil }
        let id = incoming ?? context.id
        context.logger[metadataKey: "request_id"] = "\(id)"
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestID] = id
        let elapsed = ContinuousClock.now - start
        context.logger.info("\(request.method) \(request.uri.path) \(response.status.code)",
                            metadata: ["duration_ms": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)"])
        return response
    }
}

/// Refuses bodies over the limit with 413 before anything reads them.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBytes {
            throw HTTPError(.contentTooLarge)
        }
        var request = request
        if request.method != .get, request.method != .head {
            _ = try await request.collectBody(upTo: maxBytes)
        }
        return try await next(request, context)
    }
}

/// Requires the app context of `PDPaydiantContext` on `/v1/…`, limits requests per client IP (on
/// `/v1/…`, the Kratos-compatible `/a/…` and `/identity/…` routes and the portal's `/reset…` pages), and
/// exposes the context to handlers.
struct ClientContextMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    let limits: RateLimitSettings
    let trustForwardedFor: Bool
    /// The issuer's name, for the portal's "too many requests" page.
    let issuerName: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let headers = request.headers
        var client = ClientContext(
            applicationSignature: headers[.applicationSignature], deviceID: headers[.deviceID],
            deviceType: headers[.deviceType], appVersion: headers[.appVersion],
            bearerToken: headers[.authorization].flatMap { value in
                value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
            })
        client.clientIP = clientIP(request, context)
        let path = request.uri.path
        if path.hasPrefix("/reset"), limits.enabled, !limiter.allow("ip:" + client.clientIP, limit: limits.requestsPerMinutePerIP) {
            var page = WebPage.message(.tooManyRequests, title: "Too many requests",
                                       text: "Wait a minute, then try again.", issuerName: issuerName).response()
            page.headers[.retryAfter] = String(limiter.retryAfter)
            return page
        }
        if ErrorDialect.of(path: path) == .kratos, limits.enabled,
           !limiter.allow("ip:" + client.clientIP, limit: limits.requestsPerMinutePerIP) {
            return ErrorDialect.kratos.response(.tooMany("Too many requests from this address.", retryAfter: limiter.retryAfter))
        }
        if path.hasPrefix("/v1/") {
            if limits.enabled, !limiter.allow("ip:" + client.clientIP, limit: limits.requestsPerMinutePerIP) {
                return ErrorDialect.wallet.response(DomainError(.rateLimited, retryAfter: limiter.retryAfter))
            }
            guard let signature = client.applicationSignature, signature.count == 36, UUID(uuidString: signature) != nil else {
                throw DomainError.invalidField("X-Application-Signature",
                                               "X-Application-Signature must be the app's 36-character UUID.")
            }
            if let device = client.deviceID, device.isEmpty || device.count > 128 {
                throw DomainError.invalidField("X-Device-ID", "X-Device-ID must have 1 to 128 characters.")
            }
        }
        return try await ClientContext.$current.withValue(client) { try await next(request, context) }
    }

    private func clientIP(_ request: Request, _ context: Context) -> String {
        if trustForwardedFor, let forwarded = request.headers[.xForwardedFor]?.split(separator: ",").first {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-ID")!
    static let applicationSignature = Self("X-Application-Signature")!
    static let deviceID = Self("X-Device-ID")!
    static let deviceType = Self("X-Device-Type")!
    static let appVersion = Self("X-App-Version")!
    static let xForwardedFor = Self("X-Forwarded-For")!
}
