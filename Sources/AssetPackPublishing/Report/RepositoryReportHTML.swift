import AssetPackPackaging
import AssetPackFormat
import Foundation

/// The report as one self-contained HTML page: inline CSS and SVG charts, no script, no image,
/// font or style sheet fetched from anywhere (it opens from a CI artifact or an e-mail as it is).
public enum RepositoryReportHTML {
    public static func render(_ report: RepositoryReport) -> String {
        var body = ""
        body += "<h1>Asset pack repository <code>\(escape(report.repository))</code></h1>"
        body += "<p class=\"meta\">Generated \(escape(report.generated)); \(report.channels.count) channel(s); signatures \(report.signaturesChecked ? "checked" : "not checked (no --public-key)").</p>"
        body += appleSection(report.apple)
        for w in report.warnings { body += "<p class=\"warn\">\(escape(w))</p>" }
        for channel in report.channels { body += channelSection(channel) }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Repository report — \(escape(report.repository))</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1d1d1f;background:#fafafa}
        h1{font-size:26px}h2{font-size:20px;margin-top:32px;border-bottom:2px solid #ddd;padding-bottom:4px}h3{font-size:16px}
        table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 16px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left}
        td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f0f0}
        .meta{color:#555}.warn{color:#b71c1c;font-weight:600}.ok{color:#1b5e20}.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#1565c0;color:#fff;font-size:13px}
        svg{background:#fff;border:1px solid #ddd;margin:8px 0}
        </style></head><body>
        \(body)
        </body></html>

        """
    }

    private static func appleSection(_ apple: RepositoryReport.AppleLimits) -> String {
        var s = "<h2>Apple's hosting limits</h2>"
        let packShare = Double(apple.packs) / Double(apple.packLimit)
        let byteShare = Double(apple.hostedBytes) / Double(apple.hostedLimit)
        s += gauges([("packs: \(apple.packs) of \(apple.packLimit)", packShare),
                     ("hosted: \(ByteCount.format(apple.hostedBytes)) of \(ByteCount.format(apple.hostedLimit))", byteShare)])
        if apple.warning {
            s += "<p class=\"warn\">\(percent(apple.usedFraction)) of a limit is used: Apple mails a warning from 80 %.</p>"
        } else {
            s += "<p class=\"ok\">\(percent(apple.usedFraction)) of the nearest limit is used (Apple warns from 80 %).</p>"
        }
        return s
    }

    private static func channelSection(_ c: RepositoryReport.Channel) -> String {
        var s = "<h2>Channel <code>\(escape(c.name))</code> <span class=\"badge\">catalog v\(c.catalogVersion)</span></h2>"
        s += "<p class=\"meta\">Catalog format \(c.catalogFormat), published \(escape(c.published)), expires \(escape(c.expires)); history holds version(s) \(c.history.isEmpty ? "none" : c.history.map(String.init).joined(separator: ", ")).</p>"
        if let r = c.rollout {
            s += "<h3>Rollout</h3>"
            s += gauges([("\(r.percent) % of clients get these versions", Double(r.percent) / 100)])
            s += "<p>The other clients keep catalog version \(r.fromVersion): \(escape(r.previousPacks.joined(separator: ", ")))</p>"
        } else {
            s += "<p>No rollout under way: every client of the channel gets these versions.</p>"
        }
        s += "<h3>Packs</h3><table><tr><th>pack</th><th>version</th><th>policy</th><th>language</th><th>download (compressed)</th><th>installed</th><th>ratio</th></tr>"
        for p in c.packs {
            s += "<tr><td>\(escape(p.id))</td><td class=\"n\">\(p.version)</td><td>\(escape(p.downloadPolicy))</td><td>\(escape(p.language ?? "all"))</td>"
            s += "<td class=\"n\">\(ByteCount.format(p.downloadSize))</td><td class=\"n\">\(ByteCount.format(p.installSize))</td><td class=\"n\">\(String(format: "%.2f", p.compressionRatio))×</td></tr>"
            for v in p.variants ?? [] {
                let ratio = v.downloadSize == 0 ? 0 : Double(v.installSize) / Double(v.downloadSize)
                let stored = v.storedSize < v.downloadSize ? " (stores \(ByteCount.format(v.storedSize)): the rest lies in the default's file)" : ""
                s += "<tr><td>\(escape(p.id)) <span class=\"badge\">variant \(escape(v.name))</span></td><td class=\"n\">\(p.version)</td><td>\(escape(v.conditions.description))\(escape(stored))</td><td></td>"
                s += "<td class=\"n\">\(ByteCount.format(v.downloadSize))</td><td class=\"n\">\(ByteCount.format(v.installSize))</td><td class=\"n\">\(String(format: "%.2f", ratio))×</td></tr>"
            }
        }
        s += "</table>"
        s += sizeChart(c.packs.map { ($0.id, $0.downloadSize, $0.installSize) }, title: "Pack sizes: compressed (dark) and installed (light)")
        s += "<h3>Sizes per language</h3><table><tr><th>language</th><th>packs</th><th>download</th><th>installed</th></tr>"
        for l in c.languages {
            s += "<tr><td>\(escape(l.language.isEmpty ? "all languages" : l.language))</td><td class=\"n\">\(l.packs)</td><td class=\"n\">\(ByteCount.format(l.downloadSize))</td><td class=\"n\">\(ByteCount.format(l.installSize))</td></tr>"
        }
        s += "</table>"
        s += sizeChart(c.languages.map { ($0.language.isEmpty ? "all languages" : $0.language, $0.downloadSize, $0.installSize) }, title: "Sizes per language")
        let updates = c.packs.flatMap(\.updates)
        s += "<h3>Update sizes</h3>"
        if updates.isEmpty {
            s += "<p>No kept earlier version to update from.</p>"
        } else {
            s += "<table><tr><th>pack</th><th>from → to</th><th>download</th><th>without patches</th><th>written, at most</th><th>files changed</th></tr>"
            for u in updates {
                s += "<tr><td>\(escape(u.id))\(u.variant.map { " [\(escape($0))]" } ?? "")</td><td>v\(u.fromVersion) → v\(u.toVersion)</td><td class=\"n\">\(ByteCount.format(u.downloadBytes))</td><td class=\"n\">\(ByteCount.format(u.withoutPatchesBytes))</td><td class=\"n\">\(ByteCount.format(u.writtenBytes))</td><td class=\"n\">\(u.changedFiles) of \(u.changedFiles + u.unchangedFiles)</td></tr>"
            }
            s += "</table>"
            s += sizeChart(updates.map { ("\($0.id) v\($0.fromVersion)→v\($0.toVersion)", $0.downloadBytes, $0.withoutPatchesBytes) }, title: "Update download (dark) against without patches (light)")
        }
        return s
    }

    /// Horizontal bars, one row per item: the first size dark, the second light behind it, on a
    /// linear axis scaled to the largest.
    static func sizeChart(_ rows: [(label: String, first: UInt64, second: UInt64)], title: String) -> String {
        guard !rows.isEmpty else { return "" }
        let width = 1100, labelWidth = 260, rowHeight = 24, top = 36
        let height = top + rows.count * rowHeight + 16
        let largest = Double(max(rows.map { max($0.first, $0.second) }.max() ?? 1, 1))
        let plot = Double(width - labelWidth - 150)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" style=\"max-width:100%;height:auto\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"\(escape(title))\">"
        s += "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"600\" fill=\"#222\">\(escape(title))</text>"
        for (i, row) in rows.enumerated() {
            let y = top + i * rowHeight
            let w2 = max(Double(row.second) / largest * plot, 1), w1 = max(Double(row.first) / largest * plot, 1)
            s += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" font-size=\"13\" text-anchor=\"end\" fill=\"#333\">\(escape(String(row.label.prefix(36))))</text>"
            s += "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(f(w2))\" height=\"18\" fill=\"#90caf9\"/>"
            s += "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(f(w1))\" height=\"18\" fill=\"#1565c0\"/>"
            s += "<text x=\"\(f(Double(labelWidth) + max(w1, w2) + 6))\" y=\"\(y + 16)\" font-size=\"12\" fill=\"#333\">\(ByteCount.format(row.first)) / \(ByteCount.format(row.second))</text>"
        }
        return s + "</svg>"
    }

    /// One bar per share (0…1, drawn up to 120 %), with the 80 % warning line and the 100 % limit.
    static func gauges(_ rows: [(label: String, share: Double)]) -> String {
        let width = 1100, labelWidth = 360, rowHeight = 30, top = 12
        let height = top + rows.count * rowHeight + 24
        let plot = Double(width - labelWidth - 90)
        func x(_ share: Double) -> Double { Double(labelWidth) + min(max(share, 0), 1.2) / 1.2 * plot }
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" style=\"max-width:100%;height:auto\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"limits\">"
        for (i, row) in rows.enumerated() {
            let y = top + i * rowHeight
            let color = row.share >= 1 ? "#c62828" : row.share >= RepositoryReport.appleWarningShare ? "#ef6c00" : "#2e7d32"
            s += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 18)\" font-size=\"13\" text-anchor=\"end\" fill=\"#333\">\(escape(row.label))</text>"
            s += "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(f(x(1) - Double(labelWidth)))\" height=\"20\" fill=\"#eeeeee\"/>"
            s += "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(f(max(x(row.share) - Double(labelWidth), 2)))\" height=\"20\" fill=\"\(color)\"/>"
            s += "<text x=\"\(f(x(1.2) + 6))\" y=\"\(y + 18)\" font-size=\"12\" fill=\"#333\">\(percent(row.share))</text>"
        }
        for (share, label, color) in [(RepositoryReport.appleWarningShare, "80 %", "#ef6c00"), (1.0, "100 %", "#c62828")] {
            s += "<line x1=\"\(f(x(share)))\" y1=\"\(top)\" x2=\"\(f(x(share)))\" y2=\"\(height - 16)\" stroke=\"\(color)\" stroke-dasharray=\"4 3\"/>"
            s += "<text x=\"\(f(x(share)))\" y=\"\(height - 4)\" font-size=\"11\" text-anchor=\"middle\" fill=\"\(color)\">\(label)</text>"
        }
        return s + "</svg>"
    }

    private static func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }
    private static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Text made safe for HTML content and attribute values.
    static func escape(_ s: String) -> String { HTMLText.escape(s) }
}

/// Writes the report of a repository as HTML (or JSON) to a file, atomically.
public enum RepositoryReportFile {
    /// Renders `repository`'s report, verified with `key`, to `path` (`.json`: the JSON form).
    public static func write(repository: String, key: Ed25519PublicKey?, to path: String, json: Bool = false) throws {
        let report = try RepositoryReport.make(repository: repository, keys: key.map { [$0] })
        let text = json ? report.json() + "\n" : RepositoryReportHTML.render(report)
        let file = try AtomicFile(destination: path)
        try file.write(Array(text.utf8))
        try file.commit()
    }
}
