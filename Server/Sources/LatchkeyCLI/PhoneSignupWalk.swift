import Foundation
import Latchkey

/// The phone sign-up part of the demo (`spec/phone-signup-flow.txt`): start (flow + code), verify
/// the code (in-process: read from the server's own courier; against `--server`: typed in),
/// finish, and see the SDK report the user authenticated once its device key is registered.
struct PhoneSignupWalk {
    let serverURL: URL
    let signature: String
    let outbox: String?

    func run() async throws {
        let client = DemoJourney.client(serverURL: serverURL, signature: signature, device: "demo-phone")
        let phone = "+4366" + String((0..<8).map { _ in Character(String(Int.random(in: 0...9))) })
        let states = await client.authentication.authenticationStateChanges()
        let signup = client.signup
        let started = try await step("startSignupFlow \(phone)") {
            try await signup.startSignupFlow(StartSignupRequest(phoneNumber: phone))
        }
        print("  flow \(started.flowID)")
        let code = try await readCode(phone)
        try await step("verifyPhoneNumber") {
            try await signup.verifyPhoneNumber(VerifyPhoneNumberRequest(flowID: started.flowID, otp: code))
        }
        try await step("finishSignupFlow (password, names, phone; then the device key)") {
            try await signup.finishSignupFlow(FinishSignupRequest(flowID: started.flowID, password: "pay-user-secret-1",
                                                                  email: nil, firstName: "Pay User", lastName: "Test",
                                                                  phoneNumber: phone))
        }
        var iterator = states.makeAsyncIterator()
        while let state = await iterator.next() { if case .authenticated = state { break } }
        let authenticated = if case .authenticated = await client.authentication.state { true } else { false }
        print("  onAuthenticationStateChange: authenticated = \(authenticated)")
        if let certificate = await signup.deviceCertificate() {
            print("  device certificate received (\(certificate.split(separator: "\n").count) PEM lines)")
        }
        let customer = try await step("retrieveCustomer with the sign-up's session") { try await client.enrollment.retrieveCustomer() }
        print("  \(customer.firstName ?? "") \(customer.lastName ?? "") <\(customer.username)>")
        try await step("logout") { try await client.authentication.logout() }
    }

    private func readCode(_ phone: String) async throws -> String {
        guard let outbox else {
            print("→ type the code sent to \(phone):", terminator: " ")
            return readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        }
        print("→ courier delivers the SMS")
        for _ in 0..<50 {
            let lines = (try? String(contentsOfFile: outbox, encoding: .utf8))?.split(separator: "\n") ?? []
            for line in lines.reversed() {
                guard let message = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      message["to"] as? String == phone, message["template"] as? String == "otp",
                      let code = (message["data"] as? [String: String])?["code"] else { continue }
                print("  SMS to \(phone): \(message["body"] ?? "")")
                return code
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DemoError("The SMS was not delivered within 5 s.")
    }
}
