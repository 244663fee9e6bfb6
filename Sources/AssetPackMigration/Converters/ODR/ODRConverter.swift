import AssetPackFormat
import AssetPackPackaging
import Foundation

/// Turns an ODR project's tags into asset-pack manifests: one per tag combination, as Xcode built
/// one ODR asset pack per combination. Initial-install tags become `essential` packs, prefetched
/// tags `prefetch` packs (both for first installation and updates), the rest `onDemand`.
public enum ODRConverter {
    /// What the conversion made and what it could not map.
    public struct Result: Sendable {
        public var manifests: [AssetPackManifest] = []
        /// Human-readable reasons for everything left out or needing attention.
        public var unmapped: [String] = []
        public var audit: AuditReport
    }

    /// Converts the project tree at `projectDirectory`. Selector paths are relative to it; the
    /// manifests' `sourceRoot` is it, written relative to `base` (see `PortableSourceRoot`), the
    /// folder `assetpack package` will run from.
    public static func convert(projectDirectory: String,
                               base: String = FileManager.default.currentDirectoryPath) -> Result {
        let root = PathText.absolute(projectDirectory)
        let sourceRoot = PortableSourceRoot.path(for: root, base: base)
        let report = Auditor.audit(root: root)
        var result = Result(audit: report)
        for plan in report.assetPacks {
            let platforms = plan.platforms.compactMap(Platform.init(rawValue:)).sorted()
            guard !platforms.isEmpty else {
                result.unmapped.append("tags \(plan.tags.joined(separator: ", ")): no target on a Background Assets platform builds \(plan.contents.joined(separator: ", ")) (watchOS has no replacement)")
                continue
            }
            var selectors: [FileSelector] = []
            for path in plan.contents {
                if path.hasPrefix("/") || path.split(separator: "/").contains("..") {
                    result.unmapped.append("\(path) (tags \(plan.tags.joined(separator: ", "))) lies outside \(projectDirectory)")
                    continue
                }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: PathText.join(root, path), isDirectory: &isDirectory) else {
                    result.unmapped.append("\(path) (tags \(plan.tags.joined(separator: ", "))) does not exist")
                    continue
                }
                selectors.append(isDirectory.boolValue ? .directory(path) : .file(path))
                if path.contains(".xcassets/") {
                    result.unmapped.append("\(path) is an asset-catalog item: the pack holds its raw files, so code must load them by path instead of by asset name")
                }
            }
            guard !selectors.isEmpty else { continue }
            let events: [InstallationEventType] = [.firstInstallation, .subsequentUpdate]
            let policy: DownloadPolicy = plan.downloadPolicy == "essential" ? .essential(installationEventTypes: events)
                : plan.downloadPolicy == "prefetch" ? .prefetch(installationEventTypes: events) : .onDemand
            result.manifests.append(AssetPackManifest(assetPackID: plan.assetPackID, downloadPolicy: policy, fileSelectors: selectors,
                                                      platforms: platforms, sourceRoot: sourceRoot))
        }
        for f in report.findings {
            switch f.kind {
            case .undefinedTag, .tagCaseMismatch, .dynamicTags, .knownTagWithoutContent, .selfHostedODR, .parseError, .undefinedTagInBuildSetting:
                let at = f.file.map { " (\($0)\(f.line.map { ":\($0)" } ?? ""))" } ?? ""
                result.unmapped.append("\(f.kind.rawValue): \(f.message)\(at)")
            default:
                continue
            }
        }
        return result
    }
}
