import Foundation
import Logging
import NIOCore
import NIOSSL

/// Sends email through a mail relay (`courier.email.smtp`): each message written as MIME
/// (`SMTPMessageWriter`) and handed over in a TLS-protected, optionally authenticated session.
///
/// Connections are reused: after a message the connection waits, idle, for the next one (which
/// starts with RSET) and is closed with QUIT once it has been idle `idleSeconds`; with 0, each
/// message has its own connection. A reused connection the relay has dropped meanwhile is replaced
/// without failing the message. Nothing of a message's content, nor the credentials, is logged.
public actor SMTPChannel: MessageChannel {
    private let session: SMTPSessionSettings
    private let writer: SMTPMessageWriter
    private let idleSeconds: Int
    private let insecure: Bool
    private let logger: Logger
    private let now: @Sendable () -> Date
    private var idle: [(connection: SMTPConnection, since: Date)] = []
    private var sweeper: Task<Void, Never>?

    /// A channel for the relay `settings` (already validated) describe; `key` is where they were
    /// read, for errors.
    /// - Parameter password: the password read from `settings.password`.
    /// - Throws: `ConfigurationError` at `key.caFile` when the file holds no PEM certificate, or at
    ///   `key` when TLS cannot be set up.
    public init(settings: SMTPSettings, password: String?, key: String, logger: Logger,
                now: @escaping @Sendable () -> Date = Date.init) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile {
            let roots: [NIOSSLCertificate]
            do { roots = try NIOSSLCertificate.fromPEMFile(caFile) } catch {
                throw ConfigurationError(key: "\(key).caFile", message: "Cannot read PEM certificates from \(caFile).")
            }
            guard !roots.isEmpty else { throw ConfigurationError(key: "\(key).caFile", message: "\(caFile) holds no certificate.") }
            tls.trustRoots = .certificates(roots)
        }
        if settings.insecureSkipVerification { tls.certificateVerification = .none }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tls) } catch {
            throw ConfigurationError(key: key, message: "TLS cannot be set up: \(error)")
        }
        var credentials: SMTPSessionSettings.Credentials?
        if let username = settings.username, let password { credentials = .init(username: username, password: password) }
        session = SMTPSessionSettings(
            endpoint: .init(host: settings.host ?? "", port: settings.resolvedPort,
                            connectTimeout: .seconds(Int64(settings.connectTimeoutSeconds)),
                            commandTimeout: .seconds(Int64(settings.commandTimeoutSeconds)),
                            dataTimeout: .seconds(Int64(settings.dataTimeoutSeconds))),
            security: settings.security, tls: context, heloName: settings.resolvedHeloName,
            credentials: credentials, auth: settings.auth)
        writer = SMTPMessageWriter(fromAddress: settings.from?.address ?? "", fromName: settings.from?.name)
        idleSeconds = settings.idleSeconds
        insecure = settings.insecureSkipVerification
        self.logger = logger
        self.now = now
        if insecure {
            logger.warning("\(key).insecureSkipVerification is on: the mail relay's certificate is NOT checked, so anyone in between can read every email. Use it with a test relay only.")
        }
    }

    /// Sends `message` through the relay.
    /// - Throws: `DeliveryFailure(.permanent)` when the relay refuses the message for good (5xx) or
    ///   its recipient is no address; `DeliveryFailure(.transient)`, `SMTPError` or the
    ///   connection's error for what may pass.
    public func deliver(_ message: OutgoingMessage) async throws {
        guard SMTPSettings.isAddress(message.to) else {
            throw DeliveryFailure(.permanent, answer: "The recipient is not an address the relay can take.")
        }
        let data = MIMEEncoding.dotStuffed(writer.write(message, date: now()))
        let connection = try await checkOut()
        do {
            try await connection.transmit(from: writer.fromAddress, to: message.to, data: data)
            await checkIn(connection)
        } catch let failure as DeliveryFailure where connection.isActive {
            // The relay refused this message and the session goes on: the next message's RSET
            // clears what is left of this one.
            await checkIn(connection)
            throw failure
        } catch {
            await connection.close()
            throw error
        }
    }

    /// An idle connection that still answers RSET, else a new session.
    private func checkOut() async throws -> SMTPConnection {
        while let (connection, since) = idle.popLast() {
            if now().timeIntervalSince(since) < Double(idleSeconds), connection.isActive, (try? await connection.reset()) != nil {
                return connection
            }
            await connection.close()
        }
        if insecure { logger.warning("Connecting to the mail relay without checking its certificate (insecureSkipVerification).") }
        let connection = try await SMTPConnection.open(session)
        logger.debug("Connected to the mail relay", metadata: ["host": "\(session.endpoint.host)", "port": "\(session.endpoint.port)"])
        return connection
    }

    /// Keeps `connection` for the next message, or ends it when connections are not reused.
    private func checkIn(_ connection: SMTPConnection) async {
        guard idleSeconds > 0, connection.isActive else {
            await connection.quit()
            return
        }
        idle.append((connection, now()))
        if sweeper == nil {
            sweeper = Task { [idleSeconds] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(idleSeconds))
                    guard await self.closeIdle() else { return }
                }
            }
        }
    }

    /// Ends the connections idle for `idleSeconds`; answers whether any is left to watch.
    private func closeIdle() async -> Bool {
        let cutoff = now().addingTimeInterval(-Double(idleSeconds))
        let expired = idle.filter { $0.since <= cutoff }
        idle.removeAll { $0.since <= cutoff }
        for (connection, _) in expired { await connection.quit() }
        if idle.isEmpty { sweeper = nil }
        return !idle.isEmpty
    }

    /// Ends every idle connection (QUIT).
    public func close() async {
        sweeper?.cancel()
        sweeper = nil
        let connections = idle.map(\.connection)
        idle = []
        for connection in connections { await connection.quit() }
    }
}
