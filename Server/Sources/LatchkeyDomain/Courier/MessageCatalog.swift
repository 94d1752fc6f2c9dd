import Foundation
import Mustache

/// The message templates of every language, compiled once at start: the built-in ones
/// (`Resources/templates/<language>/<template>/`, English and German) with the issuer's directory
/// (`courier.templates`, the same layout) laid over them — a file there replaces the built-in
/// one, a new language directory adds a language.
///
/// The subject and the text body are plain text (values are printed as they are); the HTML body
/// escapes every value, so a customer's name cannot add markup.
public struct MessageCatalog: Sendable {
    /// The files of a template.
    package enum Part: String, Sendable, CaseIterable {
        case subject, text, html
        /// The file's name in a template directory.
        package var fileName: String { "\(rawValue).mustache" }
    }

    /// A compiled template in one language: a file's template and where it came from.
    struct Compiled: Sendable {
        var parts: [Part: MustacheTemplate] = [:]
        var paths: [Part: String] = [:]
    }

    /// The language every template has.
    package static let fallbackLanguage = "en"

    /// Language → template name → compiled files.
    let templates: [String: [String: Compiled]]
    /// The issuer's default language (`languages.default`): a message whose reader's languages
    /// have no template is written in it when it has the template, else in English.
    package var defaultLanguage = fallbackLanguage

    /// The languages that have at least one template, sorted.
    package var languages: [String] { templates.keys.sorted() }

    /// A rendered message.
    package struct Rendered: Sendable, Equatable {
        package var language: String
        package var subject: String
        package var text: String
        package var html: String?
    }

    /// Renders `template` in the best of `preference`'s languages that has it, else in the issuer's
    /// default language when that has it, else English.
    /// `values` fill the template's values, `flags` the facts it chooses wording by.
    package func render(_ template: MessageTemplate, for preference: LanguagePreference, values: [String: String],
                        flags: Set<String> = []) -> Rendered {
        let available = Set(templates.compactMap { $0.value[template.name] == nil ? nil : $0.key })
        let language = preference.best(of: available,
                                       fallback: available.contains(defaultLanguage) ? defaultLanguage : Self.fallbackLanguage)
        guard let compiled = templates[language]?[template.name] else {
            // The catalog is checked complete in English when it is built.
            preconditionFailure("no English template \(template.name)")
        }
        var context: [String: Any] = values
        for flag in template.flags { context[flag] = flags.contains(flag) }
        return Self.rendered(compiled, language: language, context: context)
    }

    static func rendered(_ compiled: Compiled, language: String, context: [String: Any]) -> Rendered {
        func render(_ part: Part) -> String? {
            compiled.parts[part].map { $0.render(context).trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        // A subject is one header line: the lines a template spreads it over are joined.
        let subject = (render(.subject) ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        return Rendered(language: language, subject: subject, text: render(.text) ?? "", html: render(.html))
    }
}

extension MessageCatalog {
    /// The built-in templates alone.
    public static let builtIn: MessageCatalog = {
        do { return try load(overrides: nil) } catch { preconditionFailure("the built-in message templates: \(error)") }
    }()

    /// The directory of the built-in templates in the module's resources.
    static var builtInDirectory: URL {
        guard let url = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            preconditionFailure("the resource directory templates is missing")
        }
        return url
    }

    /// Reads and compiles the built-in templates and the issuer's `overrides` directory.
    /// - Throws: `ConfigurationError` (key `courier.templates`) naming the file or directory: one
    ///   that cannot be read, a directory that is no language tag or no template, a file that is no
    ///   part of its template, a template that does not parse or uses a name its message does not
    ///   provide, or a new language's email template without a subject or a text.
    public static func load(overrides: String?, defaultLanguage: String = "en") throws -> MessageCatalog {
        // Without an issuer's directory the catalog is the built-in one, read and compiled once
        // per process however many servers it builds (the tests build hundreds).
        guard let overrides else { return MessageCatalog(templates: try builtInTemplates.get(), defaultLanguage: defaultLanguage) }
        return MessageCatalog(templates: try compiled(overrides: overrides), defaultLanguage: defaultLanguage)
    }

    /// The built-in templates, compiled.
    private static let builtInTemplates = Result { try compiled(overrides: nil) }

    /// The built-in templates with `overrides` laid over them, compiled and checked complete in English.
    private static func compiled(overrides: String?) throws -> [String: [String: Compiled]] {
        var sources = try read(builtInDirectory, root: nil)
        if let overrides {
            for (language, byTemplate) in try read(URL(fileURLWithPath: overrides, isDirectory: true), root: overrides) {
                sources[language, default: [:]].merge(byTemplate) { builtIn, issuer in builtIn.merging(issuer) { $1 } }
            }
        }
        var templates: [String: [String: Compiled]] = [:]
        for (language, byTemplate) in sources {
            for (name, files) in byTemplate {
                guard let template = MessageTemplate.all.first(where: { $0.name == name }) else { continue }
                templates[language, default: [:]][name] = try compile(template, files: files)
            }
        }
        for template in MessageTemplate.all where templates[fallbackLanguage]?[template.name] == nil {
            throw ConfigurationError(key: "courier.templates", message: "The English template \(template.name) is missing.")
        }
        return templates
    }

    /// A file's text and path.
    typealias Source = (text: String, path: String)

    /// The files under `directory`: language → template → part → source. `root` names the
    /// issuer's directory in errors (nil: the built-in one, whose layout the tests check).
    static func read(_ directory: URL, root: String?) throws -> [String: [String: [Part: Source]]] {
        func refuse(_ path: String, _ problem: String) -> ConfigurationError {
            ConfigurationError(key: "courier.templates", message: "\(path): \(problem)")
        }
        func entries(_ url: URL) throws -> [URL] {
            do {
                return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.isDirectoryKey],
                                                                   options: [.skipsHiddenFiles])
            } catch {
                throw refuse(url.path, "cannot be read as a directory.")
            }
        }
        var found: [String: [String: [Part: Source]]] = [:]
        for languageURL in try entries(directory) {
            let language = languageURL.lastPathComponent
            guard LanguagePreference([language]).languages == [language] else {
                throw refuse(languageURL.path, "is not a language: name a language directory by its tag in lower case (de, fr, pt).")
            }
            for templateURL in try entries(languageURL) {
                let name = templateURL.lastPathComponent
                guard let template = MessageTemplate.all.first(where: { $0.name == name }) else {
                    throw refuse(templateURL.path, "is no message Latchkey sends; the messages are "
                        + MessageTemplate.all.map(\.name).joined(separator: ", ") + ".")
                }
                for fileURL in try entries(templateURL) {
                    guard let part = template.files.first(where: { $0.fileName == fileURL.lastPathComponent }) else {
                        throw refuse(fileURL.path, "is no part of \(name), whose files are "
                            + template.files.map(\.fileName).joined(separator: ", ") + ".")
                    }
                    guard let data = FileManager.default.contents(atPath: fileURL.path), let text = String(data: data, encoding: .utf8) else {
                        throw refuse(fileURL.path, "cannot be read as UTF-8 text.")
                    }
                    found[language, default: [:]][name, default: [:]][part] = (text, fileURL.path)
                }
            }
        }
        return found
    }

    /// Compiles the files of `template` in one language and checks that each renders with the
    /// sample values using no other name.
    static func compile(_ template: MessageTemplate, files: [Part: Source]) throws -> Compiled {
        var compiled = Compiled()
        for part in template.files {
            guard let source = files[part] else {
                if part == .html { continue }
                let directory = files.values.first.map { URL(fileURLWithPath: $0.path).deletingLastPathComponent().path } ?? template.name
                throw ConfigurationError(key: "courier.templates", message: "\(directory): \(template.name) has no \(part.fileName).")
            }
            // The subject and the text are plain text: values go in as they are. HTML escapes them
            // as the server's pages do, and a template may not choose another escaping.
            if part == .html, source.text.contains("CONTENT_TYPE") {
                throw ConfigurationError(key: "courier.templates",
                                         message: "\(source.path): sets a content type; the HTML body's values are always HTML-escaped.")
            }
            let text = part == .html ? HTMLText.template(source.text) : "{{% CONTENT_TYPE: TEXT }}" + source.text
            do {
                compiled.parts[part] = try MustacheTemplate(string: text)
            } catch let error as MustacheTemplate.ParserError {
                throw ConfigurationError(key: "courier.templates",
                                         message: "\(source.path): does not parse at line \(error.context.lineNumber): \(error.error).")
            }
            compiled.paths[part] = source.path
        }
        let unknown = MessageTemplateProbe.unknownNames(in: compiled, of: template)
        if let (part, names) = unknown.first {
            throw ConfigurationError(key: "courier.templates", message: "\(compiled.paths[part] ?? template.name): uses "
                + names.map { "{{\($0)}}" }.joined(separator: ", ") + ", which \(template.name) does not provide; it provides "
                + template.variables.joined(separator: ", ") + ".")
        }
        return compiled
    }
}
