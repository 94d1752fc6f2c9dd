import Foundation
import Mustache

/// Finds the names a template uses that its message does not provide. Mustache prints an unknown
/// name as nothing, so a misspelt `{{lnk}}` would send an email without its link; the probe
/// renders each file with the sample values twice — every flag and optional value set, then none
/// — so every section is entered once, and records each name looked up that is not provided.
final class MessageTemplateProbe: MustacheParent, @unchecked Sendable {
    private let known: [String: Any]
    private let provided: Set<String>
    private let lock = NSLock()
    private var unknown: [String] = []

    private init(known: [String: Any], provided: Set<String>) {
        self.known = known
        self.provided = provided
    }

    func child(named name: String) -> Any? {
        if provided.contains(name) { return known[name] }
        lock.withLock { if !unknown.contains(name) { unknown.append(name) } }
        return nil
    }

    /// The unknown names of each file of `compiled` that uses any, in file order.
    static func unknownNames(in compiled: MessageCatalog.Compiled, of template: MessageTemplate) -> [(MessageCatalog.Part, [String])] {
        let samples = MessageTemplate.samples.filter { template.values.contains($0.key) }
        var everything: [String: Any] = samples
        for flag in template.flags { everything[flag] = true }
        var least: [String: Any] = samples.filter { !template.optional.contains($0.key) }
        for flag in template.flags { least[flag] = false }
        return MessageCatalog.Part.allCases.compactMap { part in
            guard let file = compiled.parts[part] else { return nil }
            var names: [String] = []
            for context in [everything, least] {
                let probe = MessageTemplateProbe(known: context, provided: Set(template.variables))
                _ = file.render(probe)
                names += probe.unknown.filter { !names.contains($0) }
            }
            return names.isEmpty ? nil : (part, names)
        }
    }
}

extension MessageCatalog {
    /// Every template of every language rendered with the sample values (and its first flag
    /// set): what `latchkey config check` shows it checked.
    package func sampleRenderings() -> [(language: String, template: String, rendered: Rendered)] {
        templates.keys.sorted().flatMap { language in
            MessageTemplate.all.compactMap { template -> (String, String, Rendered)? in
                guard let compiled = templates[language]?[template.name] else { return nil }
                var context: [String: Any] = MessageTemplate.samples.filter { template.values.contains($0.key) }
                if let first = template.flags.first { context[first] = true }
                return (language, template.name, MessageCatalog.rendered(compiled, language: language, context: context))
            }
        }
    }
}

extension MessageCatalog {
    /// What `latchkey config check` prints of the templates: per language, the messages it
    /// rendered with the sample values and those it lacks (sent in English instead).
    package var checkReport: [String] {
        let renderings = sampleRenderings()
        return languages.map { language in
            let rendered = renderings.filter { $0.language == language }.map(\.template)
            let missing = MessageTemplate.all.map(\.name).filter { !rendered.contains($0) }
            return "templates \(language): \(rendered.count) of \(MessageTemplate.all.count) messages rendered with sample values"
                + (missing.isEmpty ? "" : "; without \(missing.joined(separator: ", ")) (sent in the next language)")
        }
    }
}
