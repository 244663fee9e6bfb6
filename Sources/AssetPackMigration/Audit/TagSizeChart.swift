import AssetPackPackaging
import AssetPackFormat
import Foundation

/// An inline SVG bar chart of tag sizes on a logarithmic axis, with ODR's limits drawn as lines.
enum TagSizeChart {
    struct Bar {
        var label: String
        var bytes: UInt64
        var policy: String
        /// The limit this bar must stay under (per tag, or a total's own limit).
        var limit: ODRLimit
    }

    static let width = 1180
    static let labelWidth = 220
    static let rowHeight = 26
    /// The axis spans 1 KB to 100 GB (10^3 … 10^11 bytes).
    static let minExponent = 3.0
    static let maxExponent = 11.0

    static func svg(_ bars: [Bar]) -> String {
        let plotWidth = Double(width - labelWidth - 30)
        let top = 58
        let height = top + bars.count * rowHeight + 40
        func x(_ bytes: UInt64) -> Double {
            let e = min(max(log10(Double(max(bytes, 1))), minExponent), maxExponent)
            return Double(labelWidth) + (e - minExponent) / (maxExponent - minExponent) * plotWidth
        }
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"Tag sizes against ODR limits\">"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        for e in stride(from: Int(minExponent), through: Int(maxExponent), by: 1) {
            let gx = x(UInt64(pow(10.0, Double(e))))
            s += "<line x1=\"\(f(gx))\" y1=\"\(top - 6)\" x2=\"\(f(gx))\" y2=\"\(height - 34)\" stroke=\"#e5e5e5\"/>"
            s += "<text x=\"\(f(gx))\" y=\"\(height - 18)\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">\(ByteCount.format(UInt64(pow(10.0, Double(e)))))</text>"
        }
        for (i, bar) in bars.enumerated() {
            let y = top + i * rowHeight
            let over = bar.bytes > bar.limit.bytes
            let color = over ? "#c62828" : bar.policy == "initialInstall" ? "#1565c0" : bar.policy == "prefetch" ? "#2e7d32" : bar.policy == "total" ? "#6a1b9a" : "#ef6c00"
            let w = max(x(bar.bytes) - Double(labelWidth), 2)
            s += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 17)\" font-size=\"13\" text-anchor=\"end\" fill=\"#222\">\(HTMLText.escape(bar.label))</text>"
            s += "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(f(w))\" height=\"\(rowHeight - 8)\" fill=\"\(color)\"><title>\(HTMLText.escape(bar.label)): \(bar.bytes) bytes (limit \(HTMLText.escape(bar.limit.name)): \(bar.limit.bytes))</title></rect>"
            s += "<text x=\"\(f(Double(labelWidth) + w + 6))\" y=\"\(y + 17)\" font-size=\"12\" fill=\"#333\">\(ByteCount.format(bar.bytes))\(over ? " — over \(HTMLText.escape(bar.limit.name)) limit" : "")</text>"
        }
        for (i, limit) in ODRLimits.all.enumerated() {
            let lx = x(limit.bytes)
            let ly = top - 8 - (i % 3) * 14
            let dash = limit == ODRLimits.idealTag ? " stroke-dasharray=\"4 3\"" : ""
            s += "<line x1=\"\(f(lx))\" y1=\"\(top - 6)\" x2=\"\(f(lx))\" y2=\"\(height - 34)\" stroke=\"#b71c1c\" stroke-width=\"1.5\"\(dash)/>"
            s += "<text x=\"\(f(lx))\" y=\"\(ly)\" font-size=\"11\" text-anchor=\"middle\" fill=\"#b71c1c\">\(HTMLText.escape(limit.name)) \(ByteCount.format(limit.bytes))</text>"
        }
        return s + "</svg>"
    }

    private static func f(_ v: Double) -> String { String(format: "%.1f", v) }
}
