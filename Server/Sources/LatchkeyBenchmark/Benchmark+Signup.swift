import Crypto
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// Delivers the in-process server's messages into memory, so the phone sign-up can read its codes
/// as a phone would receive them (after the courier picked them up).
actor CodeCapture: MessageChannel {
    private var codes: [String: String] = [:]

    func deliver(_ message: OutgoingMessage) async throws {
        if message.template == "otp", let code = message.data["code"] { codes[message.to] = code }
    }

    /// The code sent to `phone`, waiting for the courier up to five seconds.
    func code(for phone: String) async throws -> String {
        for _ in 0..<2500 {
            if let code = codes.removeValue(forKey: phone) { return code }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchmarkError("no code for \(phone) within 5 s")
    }
}

extension Benchmark {
    /// The phone sign-up of `spec/phone-signup-flow.txt` as one operation: flow, code (through the
    /// courier), verification, registration (one password hash), device certificate.
    static func measureSignup(driver: LoadDriver, capture: CodeCapture, seconds: Double, hashRate: Double) async throws {
        let run = Int.random(in: 10...99)
        let result = try await driver.measureOperation("phone sign-up (5 requests + SMS)", seconds: seconds) { index in
            let phone = String(format: "+43%02d%08d", run, index)
            let flow = try await driver.json(.init(path: "/a/self-service/registration/api"))
            guard let id = flow["id"] as? String else { throw BenchmarkError("no flow: \(flow)") }
            try await expect(201, driver.send(.init(path: "/identity/verification/flow/phone", method: .POST, body: """
                {"phoneNumber": "\(phone)", "phoneType": "PRIMARY", "flowId": "\(id)", "flowType": "REGISTRATION"}
                """)))
            let code = try await capture.code(for: phone)
            try await expect(200, driver.send(.init(path: "/identity/verification/flow/phone", method: .PATCH, body: """
                {"phoneType": "PRIMARY", "flowId": "\(id)", "otp": "\(code)", "flowType": "REGISTRATION"}
                """)))
            let registered = try await driver.json(.init(path: "/a/self-service/registration?flow=\(id)", method: .POST, body: """
                {"method": "password", "traits": {"name": {"first": "Bench", "last": "Phone"}, "phone": "\(phone)"},
                "password": "benchmark-pass-1"}
                """))
            if (registered["error"] as? [String: Any])?["id"] as? String == "overloaded" { throw Refused() }
            guard let token = registered["session_token"] as? String else { throw BenchmarkError("registration: \(registered)") }
            // The key registration needs a proof by the registered key (the device binding).
            let signer = DPoPSigner()
            let key = signer.key.publicKey.derRepresentation.base64EncodedString()
            let path = "/identity/pki/client/certificates"
            let proof = try signer.proof(method: "PUT", url: driver.base.absoluteString + path, token: token)
            try await expect(200, driver.send(.init(path: path, method: .PUT, session: token, body: #"{"publicKey": "\#(key)"}"#,
                                                    headers: [("DPoP", proof)])))
        }
        result.print(baseline: nil)
        print(String(format: "phone sign-up: 1 hash each, %.0f%% of the raw hash rate", result.rate / hashRate * 100))
    }

    private static func expect(_ status: UInt, _ actual: UInt) throws {
        if actual != status { throw BenchmarkError("HTTP \(actual), expected \(status)") }
    }
}
