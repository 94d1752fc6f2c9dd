import Foundation

/// A wallet's passkeys (`passkeys` table): their public keys, sign counts and names.
public protocol PasskeyStore: AuditingStore {}
