import Foundation
import HTTPTypes
import OpenAPIRuntime

/// How much a log entry matters.
public enum LatchkeyLogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug, info, warning, error
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { ["debug", "info", "warning", "error"][rawValue] }
}

/// Coordinates the app hands the SDK (`LatchkeyLocationProvider`).
public struct LatchkeyLocation: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// The radius of uncertainty in metres, when known.
    public var horizontalAccuracy: Double?
    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
    }
}

/// One thing the SDK logs: a call's answer, a login's outcome, statistics sent. Never a
/// credential, a token, a request or answer body, or a header.
public struct LatchkeyLogEntry: Sendable {
    public var level: LatchkeyLogLevel
    public var message: String
    /// The operation (`loginByPIN`, …) the entry is about, if any.
    public var operation: String?
    public var date: Date
    /// Where the device was, when the context's `locationLoggingEnabled` is on and the app's
    /// location provider knew.
    public var location: LatchkeyLocation?

    /// An entry, e.g. to test an app's handler.
    public init(level: LatchkeyLogLevel, message: String, operation: String? = nil, date: Date = Date(),
                location: LatchkeyLocation? = nil) {
        self.level = level
        self.message = message
        self.operation = operation
        self.date = date
        self.location = location
    }
}

/// Where the SDK's log entries go: the app's own logger (`os.Logger`, a file, a crash reporter).
/// Called on the SDK's tasks; return quickly.
public protocol LatchkeyLogHandler: Sendable {
    func log(_ entry: LatchkeyLogEntry)
}

/// The app's source of the device's location for log entries (the spec's
/// `locationLoggingEnabled`). The SDK never asks for location permission and never reads the
/// location itself: an app that has permission answers, e.g., `CLLocationManager`'s last location;
/// nil when it has none.
public protocol LatchkeyLocationProvider: Sendable {
    func currentLocation() async -> LatchkeyLocation?
}

/// The SDK's logger: entries go to the app's handler, in order, from one task of their own, so
/// neither the handler nor the location provider holds up a call (or counts in its latency); with
/// the context's `locationLoggingEnabled` each carries the provider's coordinates.
struct SDKLogger: Sendable {
    let handler: (any LatchkeyLogHandler)?
    private let entries: AsyncStream<LatchkeyLogEntry>.Continuation?
    let now: @Sendable () -> Date

    init(handler: (any LatchkeyLogHandler)?, locationProvider: (any LatchkeyLocationProvider)?, locationEnabled: Bool,
         now: @escaping @Sendable () -> Date) {
        self.handler = handler
        self.now = now
        guard let handler else {
            entries = nil
            return
        }
        let (stream, continuation) = AsyncStream<LatchkeyLogEntry>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        entries = continuation
        let provider = locationEnabled ? locationProvider : nil
        Task.detached {
            for await var entry in stream {
                if let provider { entry.location = await provider.currentLocation() }
                handler.log(entry)
            }
        }
    }

    func log(_ level: LatchkeyLogLevel, _ message: String, operation: String? = nil) {
        entries?.yield(LatchkeyLogEntry(level: level, message: message, operation: operation, date: now()))
    }

    static func milliseconds(since started: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// Logs each call's answer (operation, HTTP status, time) to the app's log handler: never a body,
/// a header or a token.
struct LoggingMiddleware: ClientMiddleware {
    let logger: SDKLogger

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        guard logger.handler != nil else { return try await next(request, body, baseURL) }
        let started = ContinuousClock.now
        do {
            let answer = try await next(request, body, baseURL)
            logger.log(.debug, "\(operationID) answered \(answer.0.status.code) in \(SDKLogger.milliseconds(since: started)) ms.",
                             operation: operationID)
            return answer
        } catch {
            var underlying: any Error = error
            if let clientError = error as? ClientError { underlying = clientError.underlyingError }
            if let refusal = underlying as? ServerRefusal {
                logger.log(.info, "\(operationID) refused: HTTP \(refusal.httpStatus), code \(refusal.body.code) "
                                 + "(\(refusal.body.id)) in \(SDKLogger.milliseconds(since: started)) ms.", operation: operationID)
            } else {
                logger.log(.warning, "\(operationID) got no answer in \(SDKLogger.milliseconds(since: started)) ms.",
                                 operation: operationID)
            }
            throw error
        }
    }
}
