#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore

/// The steps of the demo, each printed with its result.
struct DemoJourney {
    let serverURL: URL
    let signature: String
    let outbox: String?

    func run() async throws {
        let client = Self.client(serverURL: serverURL, signature: signature, device: "demo-device")
        let enrollment = client.enrollment

        let questions = try await step("retrieveMfaQuestionsWithMetadata") { try await enrollment.retrieveMfaQuestionsWithMetadata() }
        print("  \(questions.mfaQuestions.count) questions, \(questions.numberOfRequiredQuestions) required")
        let password = try await step("retrievePasswordConfigurations") { try await enrollment.retrievePasswordConfigurations() }
        print("  \(password.passwordMinLength)–\(password.passwordMaxLength) characters from \(password.validCharacters)")
        let passcode = try await step("retrievePasscodeConfigurations") { try await enrollment.retrievePasscodeConfigurations() }
        print("  \(passcode.length) digits, repeats allowed: \(passcode.allowSameValues), runs allowed: \(passcode.allowIncrementalValues)")
        let metadata = try await step("retrieveProfileMetadata") { try await enrollment.retrieveProfileMetadata() }
        print("  fields: " + (metadata.userProfile + metadata.addressInformation).map { "\($0.key)≤\($0.maxLength)" }.joined(separator: " "))
        let rules = EnrollmentRules(password: password, passcode: passcode, mfa: questions, metadata: metadata)

        let email = "demo.\(UUID().uuidString.prefix(8).lowercased())@example.com"
        var profile = UserProfile(
            firstName: "Ada", lastName: "Lovelace", email: email, password: "correct-horse-42",
            confirmPassword: "correct-horse-42", passcode: "123456", confirmPasscode: "123456",
            mfaAnswers: Dictionary(uniqueKeysWithValues: questions.mfaQuestions.prefix(questions.numberOfRequiredQuestions)
                .enumerated().map { ($1, "answer \($0 + 1)") }),
            additionalCustomerInformation: ["opt_in_email": "false", "opt_in_sms": "true"],
            addressInformation: AddressInformation(city: "London", zipCode: "12345"))
        await expectFailure("registerNewUser with passcode 123456") { _ = try await enrollment.registerNewUser(profile, rules: rules) }
        profile.passcode = "314159"
        profile.confirmPasscode = "314159"
        let registered = try await step("registerNewUser \(email)") { try await enrollment.registerNewUser(profile, rules: rules) }
        print("  customerUri \(registered.customerUri); nonce received (\(registered.nonce.count) characters)")
        print("  \(registered.message)")
        try await verifyEmail(to: email)
        // A verified wallet holds its address (before its link was opened, another registration
        // would have replaced it).
        await expectFailure("registerNewUser again with \(email.uppercased())") {
            var again = profile
            again.email = email.uppercased()
            _ = try await enrollment.registerNewUser(again, rules: rules)
        }
        try await AuthenticationWalk(client: client, email: email, profile: profile, nonce: registered.nonce).run()
        try await ProfileWalk(client: client, email: email, profile: profile, questions: questions).run()
        try await ResetWalk(client: client, email: email, outbox: outbox).run()
        try await PhoneSignupWalk(serverURL: serverURL, signature: signature, outbox: outbox).run()
    }

    /// An SDK client on a device of its own, as a wallet app would configure it.
    static func client(serverURL: URL, signature: String, device: String) -> LatchkeyClient {
        LatchkeyClient(context: LatchkeyContext(
            serverURL: serverURL, applicationSignature: signature, applicationVersion: "1.0.0.0i",
            deviceID: "\(device)-\(UUID().uuidString.prefix(8))", deviceTypeID: "iPhone",
            userErrorMessages: ["kUserErrorRegisterNewUserDomain.416": "That email already has a wallet."]),
            // The demo's devices live as long as the walk: memory, never the Keychain of the machine running it.
            storage: MemoryCredentialStorage(), reinstall: .off)
    }

    /// Opens the verification link and presses its page's button (opening alone changes nothing):
    /// from the in-process server's outbox file, or by the user.
    private func verifyEmail(to email: String) async throws {
        guard let outbox else {
            print("→ open the verification link the server sent to \(email), press its button, then press Enter")
            _ = readLine()
            return
        }
        let link = try await courierLink(outbox, to: email, template: "email_verification")
        let browser = PortalSession()
        let page = try await step("open the verification link") { try await browser.get(link) }
        print("  \(page.status): \(page.between("<h1 id=\"title\">", "<") ?? "")")
        let verified = try await step("press its button") {
            try await browser.post(link, "/verify-email", ["token": page.hidden("token"), "csrf": page.hidden("csrf")])
        }
        print("  \(verified.status): \(verified.between("<h1 id=\"title\">", "<") ?? "")")
        guard verified.status == 200 else { throw DemoError("The verification page did not verify the address.") }
    }

    private func expectFailure(_ name: String, _ body: () async throws -> Void) async {
        print("→ \(name)")
        do {
            try await body()
            print("  unexpectedly succeeded")
        } catch let error as LatchkeyError {
            print("  refused as expected: code \(error.code) (\(error.kind)) — \(error.message)")
        } catch {
            print("  failed: \(error)")
        }
    }

}

/// The link of the newest message of `template` to `email` in the in-process server's outbox file.
func courierLink(_ path: String, to email: String, template: String) async throws -> URL {
    print("→ courier delivers the \(template) email")
    for _ in 0..<50 {
        let lines = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n") ?? []
        for line in lines.reversed() {
            guard let message = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  message["to"] as? String == email, message["template"] as? String == template,
                  let link = (message["data"] as? [String: String])?["link"].flatMap(URL.init(string:)) else { continue }
            print("  \(message["subject"] ?? "") → \(email)")
            return link
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw DemoError("The \(template) email was not delivered within 5 s.")
}

/// A step of the demo that did not go as the journey expects.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs one demo step, printing its name and outcome.
@discardableResult
func step<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
    print("→ \(name)")
    do {
        let result = try await body()
        print("  ok")
        return result
    } catch {
        print("  failed: \(error)")
        throw error
    }
}
