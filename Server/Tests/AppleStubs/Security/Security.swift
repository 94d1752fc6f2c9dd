// Apple's Security framework (Keychain Services), as far as the SDK uses it, and the CoreFoundation
// types its Swift interface names. See ../README.md for how these stubs are written and used.
import Foundation

/// CoreFoundation's `CFString`, toll-free bridged to `String` (here through `NSString`).
public typealias CFString = NSString
/// CoreFoundation's `CFDictionary`, toll-free bridged to `[AnyHashable: Any]`.
public typealias CFDictionary = NSDictionary
/// CoreFoundation's `CFTypeRef`: `typealias CFTypeRef = AnyObject`.
public typealias CFTypeRef = AnyObject
/// `typealias OSStatus = Int32` (MacTypes).
public typealias OSStatus = Int32

// Item class, attribute, search and return keys: `let kSec…: CFString`, C globals Swift does not
// check for concurrency safety (hence `nonisolated(unsafe)` here).
nonisolated(unsafe) public let kSecClass: CFString = "class"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// Result codes: `var errSec…: OSStatus { get }`.
public var errSecSuccess: OSStatus { 0 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecMissingEntitlement: OSStatus { -34018 }

/// `func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }

/// `func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus`
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError() }

/// `func SecItemDelete(_ query: CFDictionary) -> OSStatus`
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError() }

/// `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }

/// `func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString?`
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? { fatalError() }
