import AssetPackFormat

/// Why an asset pack could not be written as an Apple Archive or imported from one (errors of
/// the archive itself are `AppleArchiveError`s, which name the entry or offset).
public enum ApplePackError: Error, CustomStringConvertible {
    /// The manifest does not decode or select its files: its diagnostics say why.
    case invalidManifest(path: String, diagnostics: [Diagnostic])
    /// The archive has no files under `Contents/`: it is not in ba-package's layout
    /// (`ApplePackLayout`). `topLevel` names what its root holds instead.
    case notInLayout(archive: String, topLevel: [String])

    public var description: String {
        switch self {
        case let .invalidManifest(path, diagnostics):
            let errors = diagnostics.filter { $0.severity == .error }
            return "\(path): \(errors.count) error(s): " + errors.map(\.description).joined(separator: "; ")
        case let .notInLayout(archive, topLevel):
            let shown = topLevel.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (topLevel.count > 5 ? ", …" : "")
            return "\(archive): no files under \(ApplePackLayout.contentsFolder)/, so it is not an asset pack in ba-package's layout"
                + (topLevel.isEmpty ? " (the archive is empty)" : "; its root holds \(shown)")
        }
    }
}
