import AssetPackFormat
import Foundation

/// Reads a manifest's JSON and checks it against the schema, reporting every problem at once
/// with its key path and location. File selection (does each path exist?) is `FileSelection`'s job.
public struct ManifestDecoder {
    private let file: String
    private var diagnostics: [Diagnostic] = []

    /// Decodes `bytes` (the contents of `file`, named in diagnostics). Returns the manifest when
    /// it has no errors; diagnostics always (warnings included).
    public static func decode(_ bytes: [UInt8], file: String) -> (manifest: AssetPackManifest?, diagnostics: [Diagnostic]) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return (nil, [Diagnostic(.error, file: file, at: error.location, "invalid JSON: \(error.message)")])
        }
        var decoder = ManifestDecoder(file: file)
        let manifest = decoder.manifest(from: root)
        return (decoder.diagnostics.hasErrors ? nil : manifest, decoder.diagnostics)
    }

    /// Reads and decodes the manifest at `url`.
    public static func load(contentsOf url: URL, displayName: String? = nil) -> (manifest: AssetPackManifest?, diagnostics: [Diagnostic]) {
        let name = displayName ?? url.path
        do {
            let data = try Data(contentsOf: url)
            return decode([UInt8](data), file: name)
        } catch {
            return (nil, [Diagnostic(.error, file: name, "cannot read the manifest: \(describe(error))")])
        }
    }

    private init(file: String) { self.file = file }

    private mutating func error(_ key: String, _ node: JSONNode?, _ message: String) {
        diagnostics.append(Diagnostic(.error, file: file, keyPath: key, at: node?.location, message))
    }

    private mutating func warning(_ key: String, _ node: JSONNode?, _ message: String) {
        diagnostics.append(Diagnostic(.warning, file: file, keyPath: key, at: node?.location, message))
    }

    /// The members of an object node, or nil (with an error) when it is something else.
    private mutating func members(_ node: JSONNode, _ key: String, allowed: Set<String>) -> [String: JSONNode]? {
        guard case .object(let list) = node.value else {
            error(key, node, "expected an object, found \(node.value.typeDescription)")
            return nil
        }
        var out: [String: JSONNode] = [:]
        for (k, v) in list {
            if !allowed.contains(k) {
                let path = key.isEmpty ? k : "\(key).\(k)"
                warning(path, v, "unknown key \"\(k)\" is ignored (known keys: \(allowed.sorted().joined(separator: ", ")))")
            }
            out[k] = v
        }
        return out
    }

    private mutating func string(_ node: JSONNode, _ key: String) -> String? {
        guard case .string(let s) = node.value else {
            error(key, node, "expected a string, found \(node.value.typeDescription)")
            return nil
        }
        return s
    }

    private mutating func manifest(from root: JSONNode) -> AssetPackManifest? {
        let keys: Set = ["assetPackID", "downloadPolicy", "fileSelectors", "platforms", "language", "sourceRoot", "userInfo", "variant"]
        guard let m = members(root, "", allowed: keys) else { return nil }
        for required in ["assetPackID", "downloadPolicy", "fileSelectors", "platforms"] where m[required] == nil {
            error(required, root, "missing required key \"\(required)\"")
        }
        var id: String?
        if let n = m["assetPackID"], let s = string(n, "assetPackID") {
            if let problem = AssetPackID.problem(with: s) { error("assetPackID", n, "\"\(s)\" \(problem)") } else { id = s }
        }
        var policy: DownloadPolicy?
        if let n = m["downloadPolicy"] { policy = downloadPolicy(n) }
        var selectors: [FileSelector]?
        if let n = m["fileSelectors"] { selectors = fileSelectors(n) }
        var platforms: [Platform]?
        if let n = m["platforms"] { platforms = self.platforms(n) }
        var language: String?
        if let n = m["language"], let s = string(n, "language") {
            if LanguageTag(s) == nil {
                error("language", n, "\"\(s)\" is not a BCP 47 tag of the form language[-Script][-REGION] (e.g. en, en-US, zh-Hant-TW)")
            } else { language = s }
        }
        var sourceRoot: String?
        if let n = m["sourceRoot"], let s = string(n, "sourceRoot") {
            if s.isEmpty { error("sourceRoot", n, "must not be empty") } else { sourceRoot = s }
        }
        var userInfo: String?
        if let n = m["userInfo"] {
            let text = CanonicalJSON.text(of: n.value)
            if text.utf8.count > CanonicalJSON.userInfoLimit {
                error("userInfo", n, "is \(text.utf8.count) bytes as JSON; at most \(CanonicalJSON.userInfoLimit) are allowed (it travels in every catalog)")
            } else { userInfo = text }
        }
        var variant: VariantConditions?
        var variantOK = true
        if let n = m["variant"] { variant = self.variant(n); variantOK = variant != nil }
        guard let id, let policy, let selectors, let platforms, variantOK else { return nil }
        return AssetPackManifest(assetPackID: id, downloadPolicy: policy, fileSelectors: selectors,
                                 platforms: platforms, language: language, sourceRoot: sourceRoot, userInfo: userInfo, variant: variant)
    }

    /// Our extension `variant` (docs/FORMAT.md, "Device variants"): the conditions under which a
    /// device takes this manifest's pack instead of the default of its `assetPackID`.
    private mutating func variant(_ node: JSONNode) -> VariantConditions? {
        let key = "variant"
        guard let m = members(node, key, allowed: ["textureFormat", "minimumMemory", "architectures"]) else { return nil }
        var conditions = VariantConditions()
        var ok = true
        if let n = m["textureFormat"], let s = string(n, "\(key).textureFormat") {
            if let format = TextureFormat(rawValue: s) { conditions.textureFormat = format.rawValue } else {
                error("\(key).textureFormat", n, "unknown texture format \"\(s)\"; valid texture formats: \(TextureFormat.validList)")
                ok = false
            }
        } else if m["textureFormat"] != nil { ok = false }
        if let n = m["minimumMemory"] {
            switch n.value {
            case .string(let s):
                if let bytes = ByteCount.parse(s), bytes > 0 { conditions.minimumMemory = bytes } else {
                    error("\(key).minimumMemory", n, "\"\(s)\" is not a size above 0 (such as 4GiB or 512MiB; \(ByteCount.grammar))")
                    ok = false
                }
            default:
                error("\(key).minimumMemory", n, "expected a size as a string (such as \"4GiB\"), found \(n.value.typeDescription)")
                ok = false
            }
        }
        if let n = m["architectures"] {
            if case .array(let items) = n.value, !items.isEmpty {
                var list: [String] = []
                for (i, item) in items.enumerated() {
                    guard let s = string(item, "\(key).architectures[\(i)]") else { ok = false; continue }
                    let name = DeviceCapabilities.normalizedArchitecture(s)
                    guard VariantConditions(architectures: [name]).problem(key: "") == nil else {
                        error("\(key).architectures[\(i)]", item, "\"\(s)\" is not an architecture name (such as arm64 or x86_64: 1 to 32 of a-z, 0-9, _)")
                        ok = false
                        continue
                    }
                    if list.contains(name) { warning("\(key).architectures[\(i)]", item, "\"\(s)\" is listed twice") } else { list.append(name) }
                }
                conditions.architectures = list
            } else if case .array = n.value {
                error("\(key).architectures", n, "must name at least one architecture (such as [\"arm64\", \"x86_64\"]); leave the key out for any")
                ok = false
            } else {
                error("\(key).architectures", n, "expected an array of architecture names (such as [\"arm64\", \"x86_64\"]), found \(n.value.typeDescription)")
                ok = false
            }
        }
        guard ok else { return nil }
        if let why = conditions.problem(key: key) {
            error(key, node, String(why.dropFirst(key.count + 2)))
            return nil
        }
        return conditions
    }

    private mutating func downloadPolicy(_ node: JSONNode) -> DownloadPolicy? {
        let key = "downloadPolicy"
        guard let m = members(node, key, allowed: ["essential", "prefetch", "onDemand"]) else { return nil }
        let present = ["essential", "prefetch", "onDemand"].filter { m[$0] != nil }
        guard present.count == 1, let name = present.first, let value = m[name] else {
            error(key, node, present.isEmpty
                  ? "needs exactly one of \"essential\", \"prefetch\" or \"onDemand\""
                  : "has \(present.map { "\"\($0)\"" }.joined(separator: " and ")); exactly one policy is allowed")
            return nil
        }
        let path = "\(key).\(name)"
        if name == "onDemand" {
            guard case .object(let list) = value.value else {
                error(path, value, "expected an empty object {}, found \(value.value.typeDescription)")
                return nil
            }
            if !list.isEmpty { error(path, value, "must be an empty object {}; on-demand packs take no installation events") ; return nil }
            return .onDemand
        }
        guard let inner = members(value, path, allowed: ["installationEventTypes"]) else { return nil }
        let eventsPath = "\(path).installationEventTypes"
        guard let eventsNode = inner["installationEventTypes"] else {
            error(eventsPath, value, "missing required key \"installationEventTypes\" (firstInstallation, subsequentUpdate)")
            return nil
        }
        guard case .array(let items) = eventsNode.value else {
            error(eventsPath, eventsNode, "expected an array, found \(eventsNode.value.typeDescription)")
            return nil
        }
        if items.isEmpty { error(eventsPath, eventsNode, "must name at least one of firstInstallation, subsequentUpdate"); return nil }
        var events: [InstallationEventType] = []
        var ok = true
        for (i, item) in items.enumerated() {
            guard let s = string(item, "\(eventsPath)[\(i)]") else { ok = false; continue }
            guard let e = InstallationEventType(rawValue: s) else {
                error("\(eventsPath)[\(i)]", item, "unknown installation event \"\(s)\" (valid: firstInstallation, subsequentUpdate)")
                ok = false
                continue
            }
            if events.contains(e) { warning("\(eventsPath)[\(i)]", item, "\"\(s)\" is listed twice") } else { events.append(e) }
        }
        guard ok else { return nil }
        events.sort()
        return name == "essential" ? .essential(installationEventTypes: events) : .prefetch(installationEventTypes: events)
    }

    private mutating func fileSelectors(_ node: JSONNode) -> [FileSelector]? {
        let key = "fileSelectors"
        guard case .array(let items) = node.value else {
            error(key, node, "expected an array, found \(node.value.typeDescription)")
            return nil
        }
        if items.isEmpty { error(key, node, "needs at least one {\"file\": …} or {\"directory\": …} selector"); return nil }
        var out: [FileSelector] = []
        var ok = true
        for (i, item) in items.enumerated() {
            let path = "\(key)[\(i)]"
            guard let m = members(item, path, allowed: ["file", "directory"]) else { ok = false; continue }
            let kinds = ["file", "directory"].filter { m[$0] != nil }
            guard kinds.count == 1, let kind = kinds.first, let valueNode = m[kind] else {
                error(path, item, kinds.isEmpty ? "needs a \"file\" or a \"directory\" key" : "has both \"file\" and \"directory\"; use one selector each")
                ok = false
                continue
            }
            guard let p = string(valueNode, "\(path).\(kind)") else { ok = false; continue }
            if let problem = PackPath.problemWithSelector(p) {
                error("\(path).\(kind)", valueNode, "\"\(p)\" \(problem)")
                ok = false
                continue
            }
            out.append(kind == "file" ? .file(p) : .directory(p))
        }
        return ok ? out : nil
    }

    private mutating func platforms(_ node: JSONNode) -> [Platform]? {
        let key = "platforms"
        guard case .array(let items) = node.value else {
            error(key, node, "expected an array, found \(node.value.typeDescription)")
            return nil
        }
        if items.isEmpty { error(key, node, "must name at least one platform (\(Platform.validList))"); return nil }
        var out: [Platform] = []
        var ok = true
        for (i, item) in items.enumerated() {
            guard let s = string(item, "\(key)[\(i)]") else { ok = false; continue }
            guard let p = Platform(rawValue: s) else {
                let hint = s.lowercased() == "ipados" ? " (iPadOS is covered by iOS)" : ""
                error("\(key)[\(i)]", item, "unknown platform \"\(s)\"\(hint); valid platforms: \(Platform.validList)")
                ok = false
                continue
            }
            if out.contains(p) { warning("\(key)[\(i)]", item, "\"\(s)\" is listed twice") } else { out.append(p) }
        }
        return ok ? out.sorted() : nil
    }
}

extension Platform {
    static var validList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A readable description of a Foundation or POSIX error.
func describe(_ error: Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(underlying.code)))
    }
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
    return ns.localizedDescription
}
