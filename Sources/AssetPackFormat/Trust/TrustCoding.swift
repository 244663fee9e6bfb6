import Foundation

/// JSON coding of root and timestamp payloads, as the catalog's: compact with sorted keys and
/// RFC 3339 times; read with the strict reader first (duplicate keys are an error), unknown keys
/// ignored, and errors naming the key path.
enum TrustCoding {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(RFC3339.string(date))
        }
        // Strings, integers, arrays and objects only: encoding cannot fail.
        return [UInt8]((try? encoder.encode(value)) ?? Data())
    }

    static func decode<T: Decodable>(_ type: T.Type, _ payload: [UInt8], role: TrustRole, file: String) throws(TrustError) -> T {
        let root: JSONNode
        do { root = try JSONParser.parse(payload) } catch { throw .malformed(file: file, "payload: not valid JSON (\(error))") }
        guard case .object(let members) = root.value else { throw .malformed(file: file, "payload: expected an object") }
        guard case .number(let format)? = members.first(where: { $0.key == role.formatKey })?.value.value else {
            throw .malformed(file: file, "payload: missing key \"\(role.formatKey)\"")
        }
        guard Int(exactly: format) == TrustRole.formatVersion else { throw .unsupportedFormat(file: file, Int(exactly: format) ?? -1) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        do {
            return try decoder.decode(T.self, from: Data(payload))
        } catch let error as DecodingError {
            throw .malformed(file: file, "payload: \(CatalogCoding.describe(error))")
        } catch {
            throw .malformed(file: file, "payload: \(error)")
        }
    }

    /// Parses `ed25519:…` texts at `key`, refusing an empty list, a bad key and a repeated one.
    static func keys(_ texts: [String], key: String, file: String) throws(TrustError) -> [Ed25519PublicKey] {
        guard !texts.isEmpty else { throw .malformed(file: file, "payload: \(key): names no key") }
        var keys: [Ed25519PublicKey] = []
        for (i, text) in texts.enumerated() {
            let k: Ed25519PublicKey
            do { k = try Ed25519PublicKey(text: text) } catch { throw .malformed(file: file, "payload: \(key)[\(i)]: \(error.reason)") }
            guard !keys.contains(k) else { throw .malformed(file: file, "payload: \(key)[\(i)]: the key is listed twice") }
            keys.append(k)
        }
        return keys
    }
}
