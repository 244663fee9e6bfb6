import AssetPackFormat

/// The limits checked before a download starts: compressed download sizes against the download
/// allowances, uncompressed install sizes against the install-size limits — the two numbers
/// Apple's keys count differently, which is easy to get wrong.
struct Allowances: Sendable {
    var downloadAllowance: UInt64?
    var essentialDownloadAllowance: UInt64?
    var maxInstallSize: UInt64?
    var essentialMaxInstallSize: UInt64?

    /// Refuses `pack` when installing it next to `installed` (other packs) and the packs
    /// `downloading` (which replace any installed version of theirs) would pass a limit.
    func check(_ pack: AssetPack, installed: [InstalledPack], downloading: [AssetPack] = []) throws(AssetPackManagerError) {
        var others: [String: (policy: DownloadPolicy, downloadSize: UInt64, installSize: UInt64)] = [:]
        for p in installed where p.id != pack.id { others[p.id] = (p.downloadPolicy, p.downloadSize, p.installSize) }
        for p in downloading where p.id != pack.id { others[p.id] = (p.downloadPolicy, p.downloadBytes, p.installSize) }
        let essential: (DownloadPolicy) -> Bool = { if case .essential = $0 { return true }; return false }
        func limit(_ name: String, _ value: UInt64?, _ used: UInt64, _ adding: UInt64) throws(AssetPackManagerError) {
            guard let value else { return }
            if used + adding > value {
                throw .allowanceExceeded("\(pack.id): \(name)", needed: used + adding, limit: value)
            }
        }
        try limit("download allowance (compressed bytes)", downloadAllowance,
                  others.values.reduce(0) { $0 + $1.downloadSize }, pack.downloadBytes)
        try limit("install size limit (uncompressed bytes)", maxInstallSize,
                  others.values.reduce(0) { $0 + $1.installSize }, pack.installSize)
        if essential(pack.downloadPolicy) {
            let ess = others.values.filter { essential($0.policy) }
            try limit("essential download allowance (compressed bytes)", essentialDownloadAllowance,
                      ess.reduce(0) { $0 + $1.downloadSize }, pack.downloadBytes)
            try limit("essential install size limit (uncompressed bytes)", essentialMaxInstallSize,
                      ess.reduce(0) { $0 + $1.installSize }, pack.installSize)
        }
    }
}
