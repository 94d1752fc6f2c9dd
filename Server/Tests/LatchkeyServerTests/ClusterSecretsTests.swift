import Crypto
import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The servers of one database share their secrets: none is invented by a replica, a replica with
/// other secrets refuses to start, and servers starting together never write a mismatched pair.
@Suite struct ClusterSecretsTests {
    /// Attack (of circumstance): two replicas each generate a pepper; a user registered through one
    /// could not log in through the other, and a courier could not open the other's messages. The
    /// first server records fingerprints and a server with another pepper or CA does not start.
    @Test(arguments: TestEnvironment.engines)
    func aServerWithOtherSecretsRefusesToStart(engine: String) async throws {
        let configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase(engine))
        let first = try await TestEnvironment.application(configuration)
        try await first.application.test(.router) { _ in }
        try await first.store.close()

        let otherPepper = try await buildApplication(configuration, options: BuildOptions(
            logger: TestEnvironment.logger, pepper: SymmetricKey(data: Data(repeating: 9, count: 32)), runCourier: false))
        let refusal = await #expect(throws: ConfigurationError.self) { try await otherPepper.application.test(.router) { _ in } }
        #expect(refusal?.key == "secrets")
        #expect(refusal?.message.contains("This server's pepper") == true, "\(String(describing: refusal))")
        try await otherPepper.store.close()

        var otherCA = configuration
        let directory = try TestEnvironment.temporaryDirectory()
        otherCA.secrets.caKeyFile = directory.appendingPathComponent("ca-key.pem").path
        otherCA.secrets.caCertificateFile = directory.appendingPathComponent("ca-cert.pem").path
        try SecretFiles.generate(settings: otherCA.secrets, issuerName: "Other")
        let second = try await TestEnvironment.application(otherCA)
        let caRefusal = await #expect(throws: ConfigurationError.self) { try await second.application.test(.router) { _ in } }
        #expect(caRefusal?.message.contains("This server's ca-certificate") == true, "\(String(describing: caRefusal))")
        try await second.store.close()

        var otherSealKey = configuration
        otherSealKey.secrets.sealKeyFile = directory.appendingPathComponent("seal-key.pem").path
        try SealKeyring.newKeyPEM().write(toFile: otherSealKey.secrets.sealKeyFile, atomically: true, encoding: .utf8)
        let third = try await TestEnvironment.application(otherSealKey)
        let sealRefusal = await #expect(throws: ConfigurationError.self) { try await third.application.test(.router) { _ in } }
        #expect(sealRefusal?.message.contains("This server's seal-key") == true, "\(String(describing: sealRefusal))")
        try await third.store.close()

        let same = try await TestEnvironment.application(configuration)
        try await same.application.test(.router) { _ in }
        try await same.store.close()
    }

    /// On PostgreSQL (which replicas share) a missing pepper or CA stops the server with the
    /// command that creates them, instead of a silently generated one.
    @Test(arguments: TestEnvironment.engines.filter { $0 == "postgres" })
    func postgresNeverGeneratesSecrets(engine: String) async throws {
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase(engine))
        let directory = try TestEnvironment.temporaryDirectory()
        configuration.secrets.pepperFile = directory.appendingPathComponent("pepper").path
        configuration.secrets.caKeyFile = directory.appendingPathComponent("ca-key.pem").path
        configuration.secrets.caCertificateFile = directory.appendingPathComponent("ca-cert.pem").path
        configuration.secrets.sealKeyFile = directory.appendingPathComponent("seal-key.pem").path
        let refusal = await #expect(throws: ConfigurationError.self) {
            _ = try await buildApplication(configuration, options: BuildOptions(logger: TestEnvironment.logger, runCourier: false))
        }
        #expect(refusal?.key == "secrets.pepperFile")
        #expect(refusal?.message.contains("latchkey secrets generate") == true)
        #expect(!FileManager.default.fileExists(atPath: configuration.secrets.pepperFile), "nothing generated")
        #expect(!FileManager.default.fileExists(atPath: configuration.secrets.sealKeyFile), "no seal key generated")

        try SecretFiles.generate(settings: configuration.secrets, issuerName: configuration.issuer.name)
        let app = try await buildApplication(configuration, options: BuildOptions(logger: TestEnvironment.logger, runCourier: false))
        try await app.application.test(.router) { _ in }
        try await app.store.close()
    }

    /// Attack (of circumstance): two replicas start together in one directory and could write a CA
    /// key and certificate that do not match, so neither starts again. Every server starting at once
    /// loads the same pair (and the same pepper).
    @Test func serversStartingTogetherAgreeOnTheirSecrets() async throws {
        let directory = try TestEnvironment.temporaryDirectory()
        var settings = SecretSettings()
        settings.pepperFile = directory.appendingPathComponent("secrets/pepper").path
        settings.caKeyFile = directory.appendingPathComponent("secrets/ca-key.pem").path
        settings.caCertificateFile = directory.appendingPathComponent("secrets/ca-cert.pem").path
        settings.sealKeyFile = directory.appendingPathComponent("secrets/seal-key.pem").path
        let shared = settings
        let loaded = try await withThrowingTaskGroup(of: (String, String, String).self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let authority = try CertificateAuthority.load(settings: shared, issuerName: "Latchkey", logger: TestEnvironment.logger)
                    let pepper = try Pepper.load(settings: shared, environment: [:], logger: TestEnvironment.logger)
                    let seal = try SealKeyring.load(settings: shared, generate: true, logger: TestEnvironment.logger)
                    return (try ClusterSecrets.fingerprint(certificate: authority.certificate), ClusterSecrets.fingerprint(pepper: pepper),
                            seal.fingerprint)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(loaded.map(\.0)).count == 1, "one CA")
        #expect(Set(loaded.map(\.1)).count == 1, "one pepper")
        #expect(Set(loaded.map(\.2)).count == 1, "one seal key")
        for path in [settings.pepperFile, settings.caKeyFile, settings.caCertificateFile, settings.sealKeyFile] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(path)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("secrets").path)
        #expect(leftovers.sorted() == ["ca-cert.pem", "ca-key.pem", "pepper", "seal-key.pem"], "no temporary file left")
        #expect(try SecretFiles.generate(settings: settings, issuerName: "Latchkey").isEmpty, "written once")
    }

    /// A pepper rotation: the new pepper is current, the old one is named as previous. Old hashes
    /// keep verifying and are made again with the new pepper at their next check, messages sealed
    /// before still open, the database records the new pepper, and a server still on the old one
    /// no longer starts.
    @Test(arguments: TestEnvironment.engines)
    func aRotatedPepperKeepsOldHashesVerifying(engine: String) async throws {
        let base = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase(engine))
        let first = try await TestEnvironment.application(base)
        try await first.application.test(.router) { client in _ = try await AuthFixture.enrolledSession(first, client) }
        try await first.store.close()

        let new = SymmetricKey(data: Data(repeating: 8, count: 32))
        let oldFile = try TestEnvironment.temporaryDirectory().appendingPathComponent("old-pepper").path
        try Data(TestEnvironment.pepper.withUnsafeBytes { Data($0) }.base64EncodedString().utf8).write(to: URL(fileURLWithPath: oldFile))
        var rotating = base
        rotating.secrets.previousPepperFiles = [oldFile]
        func server(_ configuration: ServerConfiguration, pepper: SymmetricKey) async throws -> LatchkeyApplication {
            try await buildApplication(configuration, options: BuildOptions(logger: TestEnvironment.logger, pepper: pepper,
                                                                            runCourier: false))
        }
        let second = try await server(rotating, pepper: new)
        try await second.application.test(.router) { client in
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the old hash verifies")
            let user = try #require(try await second.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let newID = "$k" + ClusterSecrets.fingerprint(pepper: new).prefix(8)
            #expect(user.passwordHash?.hasSuffix(newID) == true, "and is made again with the new pepper")
            let messages = try await second.store.outboxMessages()
            let opened = messages.filter { second.cipher.open($0) != nil }
            #expect(!messages.isEmpty && opened.count == messages.count, "sealed before, opened after")
        }
        try await second.store.close()

        let third = try await server(base, pepper: new)
        try await third.application.test(.router) { client in
            let login = try await AuthFixture.passwordLogin(client)
            #expect(login.login?.sessionToken != nil, "the old pepper is no longer needed")
        }
        try await third.store.close()

        let stale = try await server(base, pepper: TestEnvironment.pepper)
        let refusal = await #expect(throws: ConfigurationError.self) { try await stale.application.test(.router) { _ in } }
        #expect(refusal?.message.contains("This server's pepper") == true)
        try await stale.store.close()
    }
}
