import Foundation

/// A wallet's authenticator app (`totp_factors`: its sealed secret and the last step accepted) and
/// recovery codes (`recovery_codes`: their hashes and when each was used).
public protocol OneTimeFactorStore: AuditingStore {}
