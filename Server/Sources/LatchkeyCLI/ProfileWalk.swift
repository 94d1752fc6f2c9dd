import Foundation
import Latchkey
import LatchkeyCore

/// The profile part of the demo: read the customer record, change the PIN, the security answers
/// and the password, and log in with the new ones.
struct ProfileWalk {
    let client: LatchkeyClient
    let email: String
    let profile: UserProfile
    let questions: MFAQuestions

    func run() async throws {
        let auth = client.authentication
        let enrollment = client.enrollment
        let password = profile.password ?? ""
        _ = try await step("loginByUsernamePassword") { try await auth.loginByUsernamePassword(username: email, password: password) }
        let customer = try await step("retrieveCustomer") { try await enrollment.retrieveCustomer() }
        print("  \(customer.firstName ?? "") \(customer.lastName ?? "") <\(customer.username)>, active: \(customer.active)")
        try await step("updateUserProfile (lastName, opt_in_sms deleted, tier added)") {
            try await enrollment.updateUserProfile(ProfileUpdate(lastName: "King",
                                                                 additionalCustomerInformation: ["opt_in_sms": nil, "tier": "gold"]))
        }
        let updated = try await enrollment.retrieveCustomer()
        print("  \(updated.firstName ?? "") \(updated.lastName ?? ""), " + (updated.additionalCustomerInformation ?? [:])
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        try await step("updateUserPasscode") {
            try await enrollment.updateUserPasscode(oldPasscode: profile.passcode ?? "", newPasscode: "271828",
                                                    confirmNewPasscode: "271828")
        }
        let answers = Dictionary(uniqueKeysWithValues: questions.mfaQuestions.suffix(questions.numberOfRequiredQuestions)
            .map { ($0, "new answer") })
        try await step("updateMFAAnswers") { try await enrollment.updateMFAAnswers(answers) }
        do {
            try await enrollment.updateUserPassword(oldPassword: "wrong-password-1", newPassword: "renewed-pass-77",
                                                    confirmNewPassword: "renewed-pass-77")
        } catch {
            print("→ updateUserPassword with a wrong current password\n  refused as expected: code \(error.code) — \(error.message)")
        }
        try await step("updateUserPassword") {
            try await enrollment.updateUserPassword(oldPassword: password, newPassword: "renewed-pass-77",
                                                    confirmNewPassword: "renewed-pass-77")
        }
        try await step("logout") { try await auth.logout() }
        _ = try await step("loginByPIN with the new PIN") { try await auth.loginByPIN("271828") }
        try await step("logout") { try await auth.logout() }
    }
}
