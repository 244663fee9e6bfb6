import AssetPackPackaging
import AssetPackFormat

/// The audit as one self-contained HTML page (inline CSS and SVG, no scripts, no network):
/// summary, a chart of tag sizes against ODR's limits, targets and migration paths, packs, findings.
public enum AuditHTMLRenderer {
    public static func render(_ r: AuditReport, root: String) -> String {
        let e = HTMLText.escape
        var h = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>ODR audit — \(e(root))</title>
        <style>
        body{font:14px/1.45 -apple-system,"Helvetica Neue",Arial,sans-serif;margin:24px 32px;color:#222;max-width:1200px}
        h1{font-size:24px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
        .sub{color:#666;margin-bottom:16px} .cards{display:flex;gap:12px;flex-wrap:wrap}
        .card{border:1px solid #ddd;border-radius:8px;padding:10px 16px;min-width:120px} .card b{display:block;font-size:22px}
        table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eee;vertical-align:top}
        th{background:#f6f6f6;font-weight:600} code{font:12px Menlo,Consolas,monospace;color:#333}
        .path{display:inline-block;white-space:nowrap;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff}
        .managed{background:#2e7d32} .unmanaged{background:#1565c0} .stay-on-odr{background:#ef6c00} .no-replacement{background:#c62828} .unknown{background:#757575}
        .error{color:#c62828;font-weight:600} .warning{color:#ef6c00;font-weight:600} .note{color:#1565c0;font-weight:600}
        .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
        </style></head><body>
        <h1>On-Demand Resources audit</h1>
        <div class="sub">\(e(root))</div>

        """
        let live = r.apiUses.filter(\.live).count
        let total = r.tags.reduce(UInt64(0)) { $0 + $1.bytes }
        h += "<div class=\"cards\">"
        for (value, label) in [("\(r.projects.count)", "Xcode projects"), ("\(r.targets.count)", "target platforms"), ("\(live)", "live ODR API uses"),
                               ("\(r.tags.count)", "tags"), (ByteCount.format(total), "tagged bytes"), ("\(r.assetPacks.count)", "asset packs"),
                               ("\(r.findings.count)", "findings")] {
            h += "<div class=\"card\"><b>\(e(value))</b>\(e(label))</div>"
        }
        h += "</div>\n<h2>Tag sizes against ODR limits</h2>\n"
        h += "<div class=\"legend\"><span><i class=\"sw\" style=\"background:#1565c0\"></i>initial install</span><span><i class=\"sw\" style=\"background:#2e7d32\"></i>prefetch</span><span><i class=\"sw\" style=\"background:#ef6c00\"></i>on demand</span><span><i class=\"sw\" style=\"background:#6a1b9a\"></i>totals</span><span><i class=\"sw\" style=\"background:#c62828\"></i>over its limit</span> — logarithmic axis; red lines are ODR's documented limits (see docs/AUDIT.md)</div>\n"
        h += TagSizeChart.svg(chartBars(r)) + "\n"
        h += "<h2>Targets and migration paths</h2>\n<table><tr><th>Target</th><th>Project</th><th>Platform</th><th>Deployment target</th><th>Path</th><th>Set at</th></tr>"
        for t in r.targets {
            let catalyst = t.macCatalyst ? " <small>(+ Mac Catalyst: nominal, ODR calls were ignored there)</small>" : ""
            h += "<tr><td>\(e(t.name))</td><td><code>\(e(t.project))</code></td><td>\(e(t.platform ?? "—"))\(catalyst)</td><td>\(e(t.deploymentTarget ?? "—"))</td>"
            h += "<td><span class=\"path \(t.migrationPath.rawValue)\">\(t.migrationPath.rawValue)</span></td><td><code>\(e(t.file)):\(t.line.map(String.init) ?? "?")</code></td></tr>"
        }
        h += "</table>\n<h2>Asset packs (one per tag combination)</h2>\n<table><tr><th>Pack ID</th><th>Tags</th><th>Policy</th><th>Platforms</th><th>Size</th><th>Contents</th></tr>"
        for p in r.assetPacks {
            h += "<tr><td><code>\(e(p.assetPackID))</code></td><td>\(e(p.tags.joined(separator: ", ")))</td><td>\(e(p.downloadPolicy))</td><td>\(e(p.platforms.joined(separator: ", ")))</td><td>\(e(ByteCount.format(p.bytes)))</td><td><code>\(p.contents.map(e).joined(separator: "<br>"))</code></td></tr>"
        }
        h += "</table>\n<h2>Findings</h2>\n<table><tr><th>Severity</th><th>Kind</th><th>Where</th><th>Message</th></tr>"
        for f in r.findings {
            let at = (f.file ?? "—") + (f.line.map { ":\($0)" } ?? "")
            h += "<tr><td class=\"\(f.severity.rawValue)\">\(f.severity.rawValue)</td><td><code>\(f.kind.rawValue)</code></td><td><code>\(e(at))</code></td><td>\(e(f.message))</td></tr>"
        }
        h += "</table>\n<h2>ODR API uses</h2>\n<table><tr><th>Where</th><th>Symbol</th><th>Live</th></tr>"
        for u in r.apiUses {
            h += "<tr><td><code>\(e(u.file)):\(u.line):\(u.column)</code></td><td><code>\(e(u.symbol))</code></td><td>\(u.live ? "yes" : "no (\(u.context))")</td></tr>"
        }
        h += "</table>\n<h2>Background Assets keys</h2>\n<table><tr><th>Key</th><th>Where</th></tr>"
        for k in r.backgroundAssetsKeys {
            h += "<tr><td><code>\(e((k.parent.map { $0 + "." } ?? "") + k.key))</code></td><td><code>\(e(k.file)):\(k.line.map(String.init) ?? "?")</code></td></tr>"
        }
        h += "</table>\n</body></html>\n"
        return h
    }

    static func chartBars(_ r: AuditReport) -> [TagSizeChart.Bar] {
        var bars = r.tags.filter { $0.bytes > 0 }.map { TagSizeChart.Bar(label: $0.name, bytes: $0.bytes, policy: $0.installPolicy, limit: ODRLimits.tag) }
        let initial = r.tags.filter { $0.installPolicy == "initialInstall" }.reduce(UInt64(0)) { $0 + $1.bytes }
        let prefetch = r.tags.filter { $0.installPolicy == "prefetch" }.reduce(UInt64(0)) { $0 + $1.bytes }
        let all = r.tags.reduce(UInt64(0)) { $0 + $1.bytes }
        bars.append(.init(label: "Σ initial install", bytes: initial, policy: "total", limit: ODRLimits.initialInstall))
        bars.append(.init(label: "Σ initial + prefetch", bytes: initial + prefetch, policy: "total", limit: ODRLimits.initialAndPrefetch))
        bars.append(.init(label: "Σ all tags (hosted)", bytes: all, policy: "total", limit: ODRLimits.hosted))
        return bars
    }
}
