import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey users …`: see users and restore deactivated wallets and devices, on either engine.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Administer wallet users.",
        subcommands: [List.self, Show.self, Events.self, Import.self, Lock.self, Unlock.self, Reactivate.self, Deactivate.self, Suspend.self,
                      Verify.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users, newest first.")
        @OptionGroup var options: ServerOptions
        @Option(help: "How many.") var limit = 50
        @Option(help: "How many to skip.") var offset = 0

        func run() async throws {
            try await withUsers(options) { users in
                for user in try await users.users(limit: limit, offset: offset, for: .commandLine) {
                    print([user.email, user.status.rawValue, user.emailVerified ? "verified" : "unverified",
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
            try await withUsers(options) { users in
                let summary = try await users.summary(.email(email), days: 30, for: .commandLine)
                let user = summary.user
                print("""
                    email:            \(user.email)
                    customerUri:      \(EnrollmentService.customerURI(user.id))
                    name:             \(user.firstName ?? "") \(user.lastName ?? "")
                    status:           \(user.status.rawValue) (consecutive failures \(user.failedAttempts))\(user.locked ? ", locked" : "")
                    email verified:   \(user.emailVerified)
                    app verified:     \(user.appInstanceVerified)
                    created:          \(user.createdAt.formatted(.iso8601))
                    last login:       \(user.lastLoginAt?.formatted(.iso8601) ?? "never")
                    """)
                for device in summary.devices {
                    // A device key shows its thumbprint; the label is the app's name for it.
                    print("device \(device.keyThumbprint.map { "key \($0)" } ?? device.deviceID)\t"
                        + "label=\(device.label ?? "-")\t\(device.deviceType ?? "-")\t\(device.status.rawValue)\t"
                        + "app=\(device.applicationVersion ?? "-")\tsdk=\(device.sdkVersion ?? "-")\t"
                        + "failures=\(device.failedAttempts)\tlinked=\(device.linkedAt.formatted(.iso8601))")
                    for entry in summary.loginStatistics[device.deviceID] ?? [] {
                        let failures = entry.failures.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
                        print("  logins (30 days) \(entry.method.rawValue)\tattempts=\(entry.attempts)\tsuccesses=\(entry.successes)\t"
                            + "mfa=\(entry.mfaPrompts)\tfailures=\(failures.isEmpty ? "-" : failures)\t"
                            + "mean=\(entry.totalLatencyMilliseconds / max(entry.attempts, 1)) ms\tmax=\(entry.maximumLatencyMilliseconds) ms")
                    }
                }
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a user's security events (the audit trail), oldest first.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "How many of the latest events.") var limit = 100

        func run() async throws {
            try await withOperatorStore(options) { store, configuration in
                let audit = AuditAdministration(store: store, issuer: configuration.issuer)
                for event in try await audit.latestEvents(of: .email(email), limit: limit, for: .commandLine) { print(event.line) }
            }
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reactivate a wallet or device after deactivation (421, 423) or suspension (503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: reactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, wallet: .active, device: .active) }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock an account: credential changes answer 424.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withUsers(options) { users in
                try await users.lock(.email(email), for: .commandLine)
                print("\(email): locked")
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
            // The admin API's unlock, then the wallet reactivated whatever deactivated it.
            if device == nil {
                try await withUsers(options) { users in try await users.unlock(.email(email), for: .commandLine) }
            }
            try await setStatus(options, email, device: device, wallet: .active, device: .active)
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deactivate a wallet (logins answer 421) or a device (423).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "A device id: deactivate that device instead of the wallet.") var device: String?
        func run() async throws { try await setStatus(options, email, device: device, wallet: .deactivated, device: .deactivated) }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Suspend a device (logins from it answer 503).")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        @Option(help: "The device id.") var device: String
        func run() async throws {
            try await withUsers(options) { users in
                try await users.setStatus(.email(email), device: device, .suspended, for: .commandLine)
                print("\(email) device \(device): suspended")
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a user's email and app instance verified.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The user's email.") var email: String
        func run() async throws {
            try await withUsers(options) { users in
                try await users.markVerified(.email(email), for: .commandLine)
                print("\(email): email and app instance verified")
            }
        }
    }
}

/// Runs `body` with the operators' work on users (the admin API's and the console's) over the
/// configured database (migrated first); a refusal becomes the command's error message.
func withUsers(_ options: ServerOptions, _ body: (UserAdministration) async throws -> Void) async throws {
    try await withOperatorStore(options) { store, configuration in
        try await body(UserAdministration(store: store, issuer: configuration.issuer))
    }
}

/// Runs `body` with the configured database (migrated first) and the configuration; a refusal
/// (`DomainError`, as the admin API's, or `OperatorError`) becomes the command's error message
/// (a usage error, exit status 64).
func withOperatorStore(_ options: ServerOptions, _ body: (any LatchkeyStore, ServerConfiguration) async throws -> Void) async throws {
    let configuration = try options.resolve()
    do {
        try await StoreFactory.withStore(configuration.database, logger: makeLogger(level: .error)) { store in
            try await body(store, configuration)
        }
    } catch let error as OperatorError {
        throw ValidationError(error.description)
    } catch let error as DomainError {
        throw ValidationError(error.message)
    }
}

/// The wallet's status (no device given) or the device's.
private func setStatus(_ options: ServerOptions, _ email: String, device: String?, wallet: UserStatus,
                       device deviceStatus: DeviceStatus) async throws {
    try await withUsers(options) { users in
        if let device {
            try await users.setStatus(.email(email), device: device, deviceStatus, for: .commandLine)
            print("\(email) device \(device): \(deviceStatus.rawValue)")
        } else {
            try await users.setStatus(.email(email), wallet, for: .commandLine)
            print("\(email): \(wallet.rawValue)")
        }
    }
}
