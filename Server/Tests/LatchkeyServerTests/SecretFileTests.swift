#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import Testing

/// Hardening of files and answers: secrets and the database owner-only from their creation,
/// oversized chunked bodies refused with 413, JSON answers never cached.
@Suite struct SecretFileTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    /// Attack: reading the SQLite database (with its WAL and SHM files), the pepper or the CA key
    /// as another local user (files are 0644 under the usual umask). The database, its WAL and
    /// SHM, the pepper and the CA files are 0600 and the directories the server makes 0700.
    @Test func secretsAndTheDatabaseAreOwnerOnly() async throws {
        let base = try TestEnvironment.temporaryDirectory()
        let directory = base.appendingPathComponent("new/state")
        let database = base.appendingPathComponent("latchkey.sqlite").path
        let secrets = try await withServer(configure: {
            $0.database = "sqlite:" + database
            $0.secrets.caKeyFile = directory.appendingPathComponent("ca/ca-key.pem").path
            $0.secrets.caCertificateFile = directory.appendingPathComponent("ca/ca.pem").path
        }) { app, client in
            let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(answer.status == .created)
            return app.configuration.secrets
        }
        for file in [database, database + "-wal", database + "-shm", secrets.caKeyFile, secrets.caCertificateFile] where FileManager.default.fileExists(atPath: file) {
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(try Self.mode(directory.appendingPathComponent("ca").path) == 0o700)

        let pepperFile = directory.appendingPathComponent("secrets/pepper").path
        var pepperSettings = secrets
        pepperSettings.pepperFile = pepperFile
        _ = try Pepper.load(settings: pepperSettings, environment: [:], logger: TestEnvironment.logger)
        #expect(try Self.mode(pepperFile) == 0o600)
        #expect(try Self.mode(directory.appendingPathComponent("secrets").path) == 0o700)

        let storageFile = directory.appendingPathComponent("sdk/credentials.json")
        try await FileCredentialStorage(url: storageFile).set(Data("token".utf8), for: "latchkey.session")
        #expect(try Self.mode(storageFile.path) == 0o600)
        #expect(try await FileCredentialStorage(url: storageFile).data(for: "latchkey.session") == Data("token".utf8))
    }

    /// Attack: a chunked body (no Content-Length) over `http.maxBodyBytes`: 413, not 500.
    @Test func aChunkedBodyOverTheLimitIs413() async throws {
        try await withServer(live: true) { _, client in
            // A streamed body goes out chunked, without Content-Length, so only reading it finds the size.
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(try #require(client.port))/v1/enrollment/verification-email")!)
            request.httpMethod = "POST"
            request.setValue(applicationSignature, forHTTPHeaderField: "X-Application-Signature")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBodyStream = InputStream(data: Data(("{\"email\": \"" + String(repeating: "a", count: 70_000) + "\"}").utf8))
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 413, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    /// JSON answers, successes and refusals alike, carry `Cache-Control: no-store`.
    @Test func jsonAnswersAreNotCached() async throws {
        try await withServer { _, client in
            let read = try await client.call(.get, "/v1/enrollment/password-configuration")
            #expect(read.status == .ok && read.headers[.cacheControl] == "no-store")
            let refused = try await client.call(.get, "/v1/profile")
            #expect(refused.status == .unauthorized && refused.headers[.cacheControl] == "no-store")
            let unknown = try await client.call(.get, "/v1/nothing-here")
            #expect(unknown.status == .notFound && unknown.headers[.cacheControl] == "no-store")
        }
    }

    /// `/metrics` can be protected by a bearer token or turned off, each set as an operator sets
    /// it: in the configuration file (the token's default is null, which the file must still accept).
    @Test func metricsCanBeProtectedOrOff() async throws {
        let protected = try ServerConfiguration.parse(yaml: "http: { metricsToken: scraper-secret }")
        let off = try ServerConfiguration.parse(yaml: "http: { metricsEnabled: false }")
        try await withServer(configure: { $0.http = protected.http }) { (_, client) async throws -> Void in
            func status(_ authorization: String?) async throws -> HTTPResponse.Status {
                var headers = HTTPFields()
                if let authorization { headers[.authorization] = authorization }
                return try await client.execute(uri: "/metrics", method: .get, headers: headers) { $0.status }
            }
            #expect(try await status(nil) == .unauthorized)
            #expect(try await status("Bearer wrong") == .unauthorized)
            #expect(try await status("Bearer scraper-secret") == .ok)
        }
        try await withServer(configure: { $0.http = off.http }) { (_, client) async throws -> Void in
            let status = try await client.execute(uri: "/metrics", method: .get) { $0.status }
            #expect(status == .notFound)
        }
    }
}

