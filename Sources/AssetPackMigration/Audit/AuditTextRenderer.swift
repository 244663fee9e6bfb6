import AssetPackFormat

/// The audit as plain text for a terminal: summary, targets, tags, packs, uses, settings, keys, findings.
public enum AuditTextRenderer {
    public static func render(_ r: AuditReport, root: String) -> String {
        var out: [String] = []
        let live = r.apiUses.filter(\.live).count
        let broken = r.projects.filter { $0.error != nil }.count
        out.append("ODR audit of \(root)")
        out.append("  \(r.projects.count) Xcode project(s)\(broken > 0 ? " (\(broken) unreadable)" : ""), \(r.targets.count) target platform(s), "
                   + "\(live) live ODR API use(s) (+\(r.apiUses.count - live) in comments or strings), \(r.tags.count) tag(s), \(r.findings.count) finding(s)")

        section("Targets and migration paths", &out)
        for t in r.targets {
            let version = t.deploymentTarget.map { "\(t.platform ?? "?") \($0)" } ?? (t.platform ?? "no platform")
            let extra = t.macCatalyst ? " (+ Mac Catalyst: nominal)" : ""
            out.append("  \(pad(t.name, 20)) \(pad(version, 16)) \(pad(t.migrationPath.rawValue, 15)) \(t.file):\(t.line.map(String.init) ?? "?")\(extra)")
        }
        section("Tags", &out)
        for t in r.tags {
            out.append("  \(pad(t.name, 20)) \(pad(ByteCount.format(t.bytes), 10)) \(pad(t.installPolicy, 15)) defined \(t.definedAt.count)×, requested \(t.requestedAt.count)×")
        }
        section("Asset packs (one per tag combination)", &out)
        for p in r.assetPacks {
            out.append("  \(pad(p.assetPackID, 20)) \(pad(p.downloadPolicy, 10)) \(pad(ByteCount.format(p.bytes), 10)) [\(p.platforms.joined(separator: ", "))] \(p.contents.joined(separator: ", "))")
        }
        section("ODR API uses", &out)
        for u in r.apiUses {
            out.append("  \(u.file):\(u.line):\(u.column): \(u.symbol)\(u.live ? "" : "  (in a \(u.context), not live)")")
        }
        section("ODR build settings", &out)
        for s in r.buildSettings {
            out.append("  \(s.target) [\(s.configuration)] \(s.name) = \(s.value)  (\(s.file):\(s.line))")
        }
        section("Background Assets keys", &out)
        for k in r.backgroundAssetsKeys {
            out.append("  \(k.file):\(k.line.map(String.init) ?? "?"): \(k.parent.map { "\($0)." } ?? "")\(k.key)")
        }
        section("Findings", &out)
        for f in r.findings {
            var at = f.file ?? "(tree)"
            if let l = f.line { at += ":\(l)"; if let c = f.column { at += ":\(c)" } }
            out.append("  \(at): \(f.severity.rawValue): [\(f.kind.rawValue)] \(f.message)")
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func section(_ title: String, _ out: inout [String]) {
        out.append("")
        out.append(title)
    }

    private static func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
    }
}
