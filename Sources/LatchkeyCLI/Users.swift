import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyServer

/// `latchkey users …`: see users and restore deactivated wallets and devices, on either engine.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Administer wallet users.",
        subcommands: [List.self, Show.self, Lock.self, Unlock.self, Reactivate.self, Deactivate.self, Suspend.self, Verify.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users, newest first.")
        @OptionGroup var options: ServerOptions
        @Option(help: "How many.") var limit = 50
        @Option(help: "How many to skip.") var offset = 0

        func run() async throws {
            try await withStore(options) { store, issuer in
                for user in try await store.users(issuer: issuer.id, limit: limit, offset: offset) {
                    print([user.email, user.status, user.emailVerified ? "verified" : "unverified",
                           "failures=\(user.failedAttempts)", EnrollmentService.customerURI(user.id)].joined(separator: "\t"))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user and its devices.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            try await withUser(options, email) { store, user in
                print("""
                    email:            \(user.email)
                    customerUri:      \(EnrollmentService.customerURI(user.id))
                    name:             \(user.firstName ?? "") \(user.lastName ?? "")
                    status:           \(user.status) (consecutive failures \(user.failedAttempts))\(user.locked ? ", locked" : "")
                    email verified:   \(user.emailVerified)
                    app verified:     \(user.appInstanceVerified)
                    created:          \(user.createdAt.formatted(.iso8601))
                    last login:       \(user.lastLoginAt?.formatted(.iso8601) ?? "never")
                    """)
                for device in try await store.devices(userID: user.id) {
                    print("device \(device.deviceID)\t\(device.deviceType ?? "-")\t\(device.status)\tfailures=\(device.failedAttempts)")
                }
            }
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reactivate a wallet or device after deactivation (421, 423) or suspension (503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: reactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, status: "active") }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock an account: credential changes answer 424.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withUser(options, email) { store, user in
                try await store.setLocked(userID: user.id, locked: true)
                print("\(user.email): locked")
            }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every lock: the operator lock (424) and a lockout of the wallet (421) or a device (423).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: unlock that device instead of the wallet.") var device: String?
        func run() async throws {
            if device == nil {
                try await withUser(options, email) { store, user in try await store.setLocked(userID: user.id, locked: false) }
            }
            try await setStatus(options, email, device: device, status: "active")
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deactivate a wallet (logins answer 421) or a device (423).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: deactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, status: "deactivated") }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Suspend a device (logins from it answer 503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "The device id.") var device: String
        func run() async throws { try await setStatus(options, email, device: device, status: "suspended") }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a user's email and app instance verified.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withUser(options, email) { store, user in
                try await store.markEmailVerified(userID: user.id)
                try await store.markAppInstanceVerified(userID: user.id)
                print("\(user.email): email and app instance verified")
            }
        }
    }
}

private func withStore(_ options: ServerOptions, _ body: (any LatchkeyStore, IssuerSettings) async throws -> Void) async throws {
    let configuration = try options.resolve()
    let store = try await StoreFactory.open(configuration.database, logger: makeLogger(level: .error))
    do {
        try await store.migrate()
        try await body(store, configuration.issuer)
    } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
}

private func withUser(_ options: ServerOptions, _ email: String,
                      _ body: (any LatchkeyStore, UserRecord) async throws -> Void) async throws {
    try await withStore(options) { store, issuer in
        guard let user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)) else {
            throw ValidationError("No user with email \(email).")
        }
        try await body(store, user)
    }
}

private func setStatus(_ options: ServerOptions, _ email: String, device: String?, status: String) async throws {
    try await withUser(options, email) { store, user in
        if let device {
            guard try await store.device(userID: user.id, deviceID: device) != nil else {
                throw ValidationError("Device \(device) is not linked to \(email).")
            }
            try await store.setDeviceStatus(userID: user.id, deviceID: device, status: status)
            if status != "active" { try await store.revokeSessions(userID: user.id, except: nil, deviceID: device, now: Date()) }
            print("\(email) device \(device): \(status)")
        } else {
            try await store.setUserStatus(userID: user.id, status: status)
            if status != "active" { try await store.revokeSessions(userID: user.id, except: nil, deviceID: nil, now: Date()) }
            print("\(email): \(status)")
        }
    }
}
