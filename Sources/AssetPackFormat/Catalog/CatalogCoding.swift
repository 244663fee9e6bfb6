import Foundation

/// JSON coding of the catalog payload: sorted keys, RFC 3339 dates, and decoding errors turned
/// into messages that name the key path (`packs[2].sha256`).
public enum CatalogCoding {
    /// The payload bytes (compact); `pretty` for people (`verify-catalog --json`). `format`
    /// nil writes the format the content needs (1 or 2); `CatalogFormat.compressed` writes the
    /// JSON a format-3 payload compresses.
    public static func encode(_ catalog: Catalog, pretty: Bool = false, format: Int? = nil) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(RFC3339.string(date))
        }
        // The format is the one the content needs: 1 unless a channel or a rollout is named.
        var catalog = catalog
        catalog.catalogFormat = format ?? catalog.requiredFormat
        // The model holds only strings, integers, arrays and objects: encoding cannot fail.
        return [UInt8]((try? encoder.encode(catalog)) ?? Data())
    }

    /// Decodes and checks a payload. Unknown keys are ignored, so that later format revisions
    /// may add fields that older clients skip.
    public static func decode(_ payload: [UInt8]) throws(CatalogError) -> Catalog {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        // The strict reader first: Foundation's would take the last of two equal keys, so a
        // payload with a duplicate `catalogFormat` (or any duplicate) could mean one thing to us
        // and another to a stricter reader, and would slip past the format check below.
        let root: JSONNode
        do { root = try JSONParser.parse(payload) } catch { throw .malformed("payload: not valid JSON (\(error))") }
        if case .object(let members) = root.value, case .number(let format)? = members.first(where: { $0.key == "catalogFormat" })?.value.value,
           !CatalogFormat.readable.contains(Int(exactly: format) ?? -1) {
            throw .unsupportedFormat(Int(exactly: format) ?? -1)
        }
        let catalog: Catalog
        do {
            catalog = try decoder.decode(Catalog.self, from: Data(payload))
        } catch let error as DecodingError {
            throw .malformed("payload: \(describe(error))")
        } catch {
            throw .malformed("payload: \(error)")
        }
        if let problem = catalog.problem { throw .malformed("payload: \(problem)") }
        return catalog
    }


    static func keyPath(_ path: [CodingKey]) -> String {
        var out = ""
        for k in path {
            if let i = k.intValue { out += "[\(i)]" } else { out += out.isEmpty ? k.stringValue : ".\(k.stringValue)" }
        }
        return out.isEmpty ? "(top level)" : out
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : keyPath(context.codingPath) + "."
            return "missing key \"\(parent)\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(keyPath(context.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(keyPath(context.codingPath)): expected \(typeName(type)), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(keyPath(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is UInt64.Type: return "a whole number"
        case is Bool.Type: return "a boolean"
        default: return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
