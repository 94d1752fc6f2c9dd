import Foundation
import LatchkeyCore
import Yams

/// The texts of the portal's pages and of the wallet API's messages in every language the server
/// speaks: the built-in catalogs (`Resources/languages/<language>/{portal,api}.yaml`, English and
/// German) with the issuer's directory of the same layout laid over them key by key. A catalog is
/// a flat mapping of key to text; a text names its values as `{name}` (the portal's) or `{1}`,
/// `{2}`, … (the API's, see `LocalizableText`). A key a language lacks is said in English.
public struct TextCatalog: Sendable {
    /// The catalogs of a language.
    public enum Part: String, Sendable, CaseIterable {
        /// The portal's pages: resets, link confirmations, their results and errors.
        case portal
        /// The wallet API's error messages and the credential rules; the key is the English text.
        case api
    }

    /// The language every key exists in and every missing key falls back to.
    public static let base = "en"

    /// Per language and part, key to text.
    public let tables: [String: [Part: [String: String]]]
    /// The language of a request that names none of `languages`.
    public let defaultLanguage: String

    /// The languages the catalogs hold.
    public var languages: Set<String> { Set(tables.keys) }

    /// The built-in catalogs and the issuer's.
    /// - Throws: `ConfigurationError` naming `languages.directory` for a directory or file that
    ///   cannot be read (a catalog that is not a flat mapping of strings) and `languages.default`
    ///   for a default language no catalog holds.
    public static func load(_ settings: LanguageSettings) throws -> TextCatalog {
        // The built-in catalogs are read once per process; the issuer's directory at each load.
        var tables = try builtInTables.get()
        if let directory = settings.directory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConfigurationError(key: "languages.directory", message: "\(directory) is not a directory.")
            }
            for (language, parts) in try read(directory: URL(fileURLWithPath: directory), key: "languages.directory") {
                for (part, texts) in parts {
                    tables[language, default: [:]][part, default: [:]].merge(texts) { _, issuers in issuers }
                }
            }
        }
        guard tables[settings.default] != nil else {
            throw ConfigurationError(key: "languages.default",
                                     message: "No catalog holds \"\(settings.default)\": one of \(tables.keys.sorted().joined(separator: ", ")).")
        }
        return TextCatalog(tables: tables, defaultLanguage: settings.default)
    }

    /// The built-in catalogs.
    private static let builtInTables = Result { try read(directory: builtInDirectory, key: "languages") }

    /// The texts in the first of the customer's languages the catalogs hold, else the default language.
    public func texts(for preference: LanguagePreference) -> LocalizedTexts {
        texts(in: preference.best(of: languages, fallback: defaultLanguage))
    }

    /// The texts in `language` (English where it lacks a key).
    public func texts(in language: String) -> LocalizedTexts {
        LocalizedTexts(language: language, own: tables[language] ?? [:], base: tables[Self.base] ?? [:])
    }

    /// What a language lacks and what it has too many of, against English, per part.
    public func coverage(of language: String) -> [(part: Part, missing: [String], unknown: [String])] {
        Part.allCases.map { part in
            let english = Set(tables[Self.base]?[part].map { Array($0.keys) } ?? [])
            let own = Set(tables[language]?[part].map { Array($0.keys) } ?? [])
            return (part, english.subtracting(own).sorted(), own.subtracting(english).sorted())
        }
    }

    /// `latchkey config check`'s lines about the languages: each language, and per catalog the keys
    /// it lacks against English (said in English at run time) and the keys English does not have
    /// (never used: a misspelt key, or one of an older version).
    public var coverageReport: [String] {
        var lines = ["languages: \(languages.sorted().joined(separator: ", ")) (default \(defaultLanguage))"]
        for language in languages.sorted() where language != Self.base {
            let gaps = coverage(of: language).filter { !$0.missing.isEmpty || !$0.unknown.isEmpty }
            if gaps.isEmpty { lines.append("languages: \(language): complete") }
            for (part, missing, unknown) in gaps {
                if !missing.isEmpty {
                    lines.append("languages: \(language)/\(part.rawValue).yaml: \(missing.count) missing (said in English): "
                                 + missing.map { "\"\($0)\"" }.joined(separator: ", "))
                }
                if !unknown.isEmpty {
                    lines.append("languages: \(language)/\(part.rawValue).yaml: \(unknown.count) unknown (not in English, never used): "
                                 + unknown.map { "\"\($0)\"" }.joined(separator: ", "))
                }
            }
        }
        return lines
    }

    /// The built-in catalogs, a resource of this target.
    static var builtInDirectory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("languages", isDirectory: true)
    }

    /// The catalogs of each language directory under `directory`.
    private static func read(directory: URL, key: String) throws -> [String: [Part: [String: String]]] {
        let manager = FileManager.default
        guard let languages = try? manager.contentsOfDirectory(atPath: directory.path) else {
            throw ConfigurationError(key: key, message: "Cannot read \(directory.path).")
        }
        var tables: [String: [Part: [String: String]]] = [:]
        for language in languages where LanguagePreference([language]).languages == [language] {
            for part in Part.allCases {
                let file = directory.appendingPathComponent(language).appendingPathComponent("\(part.rawValue).yaml")
                guard manager.fileExists(atPath: file.path) else { continue }
                tables[language, default: [:]][part] = try read(file: file, key: key)
            }
        }
        return tables
    }

    /// A flat catalog: key to text.
    private static func read(file: URL, key: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: file.path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: key, message: "Cannot read \(file.path).")
        }
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw ConfigurationError(key: key, message: "\(file.path) is not valid YAML: \(error)")
        }
        guard let node, node.null == nil else { return [:] }
        guard let mapping = node.mapping else {
            throw ConfigurationError(key: key, message: "\(file.path) must be a mapping of keys to texts.")
        }
        var texts: [String: String] = [:]
        for (name, value) in mapping {
            guard let name = name.string, let value = value.string else {
                throw ConfigurationError(key: key, message: "\(file.path): every key and every text is a string.")
            }
            texts[name] = value
        }
        return texts
    }
}

/// The texts of one language, with English for the keys it lacks.
public struct LocalizedTexts: Sendable {
    /// The language's tag (`de`), for `Content-Language` and `<html lang>`.
    public let language: String
    let own: [TextCatalog.Part: [String: String]]
    let base: [TextCatalog.Part: [String: String]]

    /// An API text in this language, its values filled in; a text no catalog holds is its English.
    public func api(_ text: LocalizableText) -> String { said(text).text }

    /// An API text in this language with the language it is actually in: English (`en`) when
    /// this language's catalog lacks the key, for `Content-Language`.
    public func said(_ text: LocalizableText) -> (text: String, language: String) {
        if let template = own[.api]?[text.key] { return (text.render(template), language) }
        guard let template = base[.api]?[text.key] else { return (text.english, TextCatalog.base) }
        return (text.render(template), TextCatalog.base)
    }

    /// A page's text by key, its `{name}` placeholders filled from `values` (the values are data: a
    /// page escapes them as it escapes every value).
    public func portal(_ key: String, _ values: [String: String] = [:]) -> String {
        LocalizableText.fill(own[.portal]?[key] ?? base[.portal]?[key] ?? key, with: values)
    }
}
