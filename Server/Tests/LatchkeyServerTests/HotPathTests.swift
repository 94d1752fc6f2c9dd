import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OpenAPIRuntime
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyHTTP
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The hot paths' shortcuts keep every check. A device's proofs share their
/// protected header, which is parsed once; the issuer's configuration reads are encoded once.
@Suite struct HotPathTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.publicURL = TestDeviceKey.base
    }

    /// Once a key's header is known, a proof with that same header text is still checked whole:
    /// a signature by another key, another URL, another method or a used jti is refused.
    @Test func aKnownHeaderStillChecksEveryProof() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let device = TestDeviceKey(), thief = TestDeviceKey()
            let path = "/v1/enrollment/mfa-questions"
            func read(_ proof: String) async throws -> JSONAnswer {
                try await client.call(.get, path, headers: appHeaders().with(proof: proof))
            }
            #expect(try await read(device.proof("GET", path)).status == .ok, "the header is known from now on")
            #expect(try await read(device.proof("GET", path)).status == .ok)
            let forged = try await read(device.proof("GET", path, signer: thief.key))
            #expect(forged.status == .unauthorized && forged.failure?.id == "invalid_dpop_proof", "\(forged.json)")
            #expect(try await read(device.proof("GET", path, htu: TestDeviceKey.base + "/v1/devices")).status == .unauthorized)
            #expect(try await read(device.proof("POST", path)).status == .unauthorized)
            let once = device.proof("GET", path)
            #expect(try await read(once).status == .ok)
            #expect(try await read(once).failure?.id == "invalid_dpop_proof", "a replay")
            let known = String(once.prefix { $0 != "." })
            #expect(try await read(known + ".e30." + String(once.split(separator: ".")[2])).status == .unauthorized,
                    "a known header with claims that are not a proof's")
            #expect(try await read(known + ".a.b.c").status == .unauthorized, "four parts")
            let padded = device.proof("GET", path)
            #expect(try await read(padded + "=").status == .unauthorized, "padding is not base64url")
            #expect(try await read(padded.replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "+")).status
                    != .ok || !padded.contains(where: { $0 == "_" || $0 == "-" }), "nor the standard alphabet")
        }
    }

    /// Attack: once any proof of an attacker's own key has verified, its header
    /// is known and the claims of the next proofs with that header are scanned before their
    /// signature is checked; a number past `Int` in them must be refused, not trap the process.
    @Test func aHugeNumberInAProofIsRefusedNotACrash() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let attacker = TestDeviceKey(), path = "/v1/enrollment/mfa-questions"
            let signed = attacker.proof("GET", path)
            #expect(try await client.call(.get, path, headers: appHeaders().with(proof: signed)).status == .ok, "the header is known")
            let parts = signed.split(separator: ".")
            for payload in [#"{"x":99999999999999999999}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":9223372036854775808}"#,
                            #"{"jti":"a","htm":"GET","htu":"u","iat":-9223372036854775809}"#,
                            #"{"jti":"a","htm":"GET","htu":"u","iat":"# + String(repeating: "9", count: 1000) + "}"] {
                let proof = parts[0] + "." + TestDeviceKey.b64(Array(payload.utf8)) + "." + parts[2]
                let answer = try await client.call(.get, path, headers: appHeaders().with(proof: proof))
                #expect(answer.status == .unauthorized && answer.failure?.id == "invalid_dpop_proof", "\(payload.prefix(60))")
            }
            #expect(try await client.call(.get, path, headers: appHeaders().with(proof: attacker.proof("GET", path))).status == .ok,
                    "the server still answers")
        }
    }

    /// The claims scanner accepts only what JSONDecoder decodes the same way: over the shapes
    /// clients send (JSONSerialization's escaped slashes, Python's spaces) and mutations of them.
    @Test func theClaimsScannerReadsAsJSONDecoderDoes() throws {
        let sdk = #"{"ath":"fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo","htm":"GET","htu":"https:\/\/wallet.example\/v1\/auth\/session","iat":1790000000,"jti":"3F2504E0-4F89-11D3-9A0C-0305E82C3301"}"#
        let python = #"{"jti": "c2a1", "htm": "POST", "htu": "http://127.0.0.1:8080/v1/auth/login", "iat": 1790000000, "nonce": "n.o-n_c~e", "ath": null}"#
        let decoder = JSONDecoder()
        func scanned(_ text: [UInt8]) -> DPoPClaims? { text.withUnsafeBytes { DPoPClaims(scanning: $0) } }
        func decoded(_ text: [UInt8]) -> DPoPClaims? { try? decoder.decode(DPoPClaims.self, from: Data(text)) }
        for text in [sdk, python] {
            let claims = try #require(scanned(Array(text.utf8)), "the common shapes take the fast path: \(text)")
            #expect(claims == decoded(Array(text.utf8)))
        }
        #expect(scanned(Array(sdk.utf8))?.htu == "https://wallet.example/v1/auth/session")
        let edges = [
            #"{"jti":"a","htm":"GET","htu":"u","iat":1,"jti":"b"}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":1.0}"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":1e3}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":-0}"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":01}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":1}x"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":9223372036854775807}"#, #"{"jti":"\u0041","htm":"GET","htu":"u","iat":1}"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":1,"x":{"y":[1,2]},"z":true}"#, #"{"jti":"a\"b","htm":"GET","htu":"u","iat":1}"#,
            #"{"jti":"é","htm":"GET","htu":"u","iat":1}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":"1"}"#, "{}", "",
            #"{"jti":"a","htm":"GET","htu":"u","iat":1,"ath":7}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":1,"nonce":false}"#,
            #"{"x":99999999999999999999,"jti":"a","htm":"GET","htu":"u","iat":1}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":9223372036854775808}"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":-9223372036854775809}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":999999999999999999}"#,
            #"{"jti":"a","htm":"GET","htu":"u","iat":1000000000000000000}"#, #"{"jti":"a","htm":"GET","htu":"u","iat":"# + String(repeating: "9", count: 1000) + "}",
        ]
        for text in edges {
            if let claims = scanned(Array(text.utf8)) { #expect(claims == decoded(Array(text.utf8)), "\(text)") }
        }
        // Mutations of the common shapes: whatever the scanner accepts, JSONDecoder decodes alike.
        var random = SplitMix64(seed: 24)
        let alphabet = Array(#"{}[]:,"\/ .-+eE0123456789abcdefnrtu"#.utf8) + [0x00, 0x09, 0x0A, 0x7F, 0xC3, 0xA9]
        let digits = Array("99999999999".utf8)
        var accepted = 0
        for round in 0..<20_000 {
            var text = Array((round.isMultiple(of: 2) ? sdk : python).utf8)
            for _ in 0...Int(random.next() % 3) {
                let at = Int(random.next() % UInt64(text.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 4 {
                case 0: text[at] = byte
                case 1: text.insert(byte, at: at)
                case 2: text.insert(contentsOf: digits, at: at)  // numbers past 18 digits
                default: text.remove(at: at)
                }
            }
            if let claims = scanned(text) {
                accepted += 1
                #expect(claims == decoded(text), "\(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(accepted > 1_000, "the mutations reach the scanner's accepting paths: \(accepted)")
    }

    /// `htu` is compared byte by byte now, without building strings: it names the same URLs as
    /// stripping its query and fragment and comparing did (for the ASCII a request path is).
    @Test func htuNamesWhatTheStrippedComparisonNamed() {
        let bases = ["https://wallet.example", "http://127.0.0.1:8080", "https://w.example/base", "https://w.example?x", ""]
        let paths = ["/v1/auth/session", "/", "", "/v1/a#b", "/v1/devices/42"]
        let tails = ["", "?", "?a=1", "#", "#f", "/", "x", "?#", "%3F"]
        for base in bases {
            for path in paths {
                let candidates = tails.map { base + path + $0 } + tails.map { base + $0 } + [path, base + path.dropLast(), "HTTPS://wallet.example" + path]
                for htu in candidates {
                    let stripped = String(htu.prefix { $0 != "?" && $0 != "#" })
                    #expect(DPoPVerifier.names(htu, base: base, path: path) == (stripped == base + path), "\(htu) \(base) \(path)")
                }
            }
        }
    }

    /// The session answer written without JSONEncoder is the contract's `SessionResponse`: read
    /// by the generated type, the device id as sent (quotes, backslashes, non-ASCII), the header
    /// the generated handlers send; a client that takes no JSON still gets the generated refusal.
    @Test func theSessionAnswerIsTheContractsShape() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_790_000_000))
        try await withServer(clock: clock) { app, client in
            let device = #"phone "7" \ café/2"#
            let session = try await AuthFixture.enrolledSession(app, client, device: device)
            let answer = try await client.call(.get, "/v1/auth/session", headers: appHeaders(device: device, session: session))
            #expect(answer.status == .ok, "\(answer.json)")
            let described = try #require(answer.decoded(Components.Schemas.SessionResponse.self), "\(answer.json)")
            #expect(described.deviceId == device && described.customerUri.hasPrefix("urn:latchkey:customer:"))
            // JSONEncoder writes a slash as `\/`; the direct answer as it is: the route takes it.
            #expect(String(decoding: answer.data, as: UTF8.self).contains("café/2"), "answered directly")
            #expect(Set(answer.json.keys) == ["customerUri", "deviceId", "createdAt", "lastSeenAt", "idleExpiresAt", "expiresAt"])
            #expect(answer.json["createdAt"] as? String == "2026-09-21T14:13:20Z" && described.createdAt == clock.now)
            #expect(described.idleExpiresAt == clock.now.addingTimeInterval(1800) && described.expiresAt > described.idleExpiresAt)
            let configuration = try await client.call(.get, "/v1/enrollment/mfa-questions")
            #expect(answer.headers[.contentType] == configuration.headers[.contentType], "the generated handlers' content type")
            let xml = try await client.call(.get, "/v1/auth/session",
                                            headers: appHeaders(device: device, session: session).with(accept: "application/xml"))
            #expect(xml.status != .ok, "\(xml.status)")
        }
    }

    /// The direct answer is taken exactly where the generated handler would answer JSON: no
    /// `Accept`, or one the runtime parses that admits JSON; anything else (another type, a range
    /// or quality it cannot parse, which it refuses with 400) goes to the generated handler.
    @Test func theDirectAnswerIsTakenOnlyWhereTheGeneratedOneWouldAnswerJSON() async throws {
        let router = Router()
        router.group().add(middleware: DirectAnswer<BasicRequestContext>(answer: { Array("{}".utf8) }))
            .get("/v1/auth/session") { _, _ in Response(status: .badRequest) }
        let cases: [(String?, Bool)] = [
            (nil, true), ("application/json", true), ("*/*;q=0.5", true), ("Application/JSON; q=0.9, text/html", true),
            ("application/*", true), ("application/xml", false), ("application/problem+json", false),
            ("application/json, text", false), ("application/json;q=2", false), ("*/*;q=abc", false),
        ]
        try await Application(router: router).test(.router) { client in
            for (accept, direct) in cases {
                var headers = HTTPFields()
                if let accept { headers[.accept] = accept }
                let response = try await client.execute(uri: "/v1/auth/session", method: .get, headers: headers)
                #expect((response.status == .ok) == direct, "\(accept ?? "no Accept")")
                if direct { #expect(String(buffer: response.body) == "{}" && response.headers[.contentType] == "application/json; charset=utf-8") }
            }
        }
    }

    /// The writer's strings read back as written, whatever they hold.
    @Test func theObjectWriterEscapesWhatJSONNeeds() throws {
        var random = SplitMix64(seed: 25)
        let pool: [Character] = ["a", "\"", "\\", "/", "\u{0}", "\u{1F}", "\n", "\t", "\u{7F}", "é", "€", "😀", "\u{2028}", " "]
        for _ in 0..<2_000 {
            let text = String((0..<Int(random.next() % 12)).map { _ in pool[Int(random.next() % UInt64(pool.count))] })
            var writer = JSONObjectWriter()
            writer.add("value", text)
            writer.add("absent", nil)
            let read = try JSONSerialization.jsonObject(with: Data(writer.finished())) as? [String: String]
            #expect(read == ["value": text], "\(text.debugDescription)")
        }
    }

    /// The configuration reads answer the same bytes every time, and the edge still runs first.
    @Test func aStoredAnswerStillPassesTheEdge() async throws {
        try await withServer { _, client in
            let first = try await client.call(.get, "/v1/enrollment/mfa-questions")
            let second = try await client.call(.get, "/v1/enrollment/mfa-questions")
            #expect(first.status == .ok && second.data == first.data)
            #expect(try await client.call(.get, "/v1/enrollment/mfa-questions", headers: [:]).status == .unauthorized,
                    "no app signature")
            let xml = try await client.call(.get, "/v1/enrollment/password-configuration",
                                            headers: appHeaders().with(accept: "application/xml"))
            #expect(xml.status != .ok, "a client that does not take JSON gets the generated handler's answer: \(xml.status)")
            let problem = try await client.call(.get, "/v1/enrollment/password-configuration",
                                                headers: appHeaders().with(accept: "application/problem+json"))
            #expect(problem.status != .ok, "nor one that takes another JSON type: \(problem.status)")
            let anyCase = try await client.call(.get, "/v1/enrollment/password-configuration",
                                                headers: appHeaders().with(accept: "Application/JSON; q=0.9, text/html"))
            #expect(anyCase.status == .ok)
        }
    }
}

extension HTTPFields {
    func with(accept: String) -> HTTPFields {
        var headers = self
        headers[.accept] = accept
        return headers
    }
}

/// A small deterministic generator (SplitMix64), so a failing mutation can be found again.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
