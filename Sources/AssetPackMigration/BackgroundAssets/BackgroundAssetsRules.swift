/// Checks one Info.plist's Background Assets keys against Apple's rules for combining them.
enum BackgroundAssetsRules {
    static func check(_ keys: [BackgroundAssetsKey], file: String, targets: [TargetReport], into findings: inout [Finding]) {
        let top = Dictionary(keys.filter { $0.parent == nil }.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        if let hosting = top["BAUsesAppleHosting"] {
            let others = top.keys.filter { !BackgroundAssetsKeys.appleHostedSet.contains($0) }.sorted()
            if !others.isEmpty {
                findings.append(Finding(.appleHostingWithOtherKeys, .warning,
                    "BAUsesAppleHosting is set together with \(others.joined(separator: ", ")); Apple says to omit other Background Assets keys for Apple-hosted packs",
                    file: file, line: hosting.line))
            }
            if hosting.value.isTrue, top["BAHasManagedAssetPacks"]?.value.isTrue != true {
                findings.append(Finding(.appleHostingWithoutManagedPacks, .warning,
                    "BAUsesAppleHosting is YES but BAHasManagedAssetPacks is not; Apple hosting needs managed asset packs",
                    file: file, line: hosting.line))
            }
        }
        if let managed = top["BAHasManagedAssetPacks"], managed.value.isTrue {
            if top["BAAppGroupID"] == nil {
                findings.append(Finding(.managedPacksWithoutAppGroup, .warning,
                    "BAHasManagedAssetPacks is YES without BAAppGroupID; the app and its downloader extension share packs through an app group",
                    file: file, line: managed.line))
            }
            for t in targets where t.migrationPath != .managed && t.migrationPath != .unknown {
                findings.append(Finding(.managedPacksBelowDeploymentTarget, .error,
                    "BAHasManagedAssetPacks is YES but target \(t.name) deploys to \(t.platform ?? "?") \(t.deploymentTarget ?? "?"); managed packs need 26.0",
                    file: file, line: managed.line))
            }
        }
    }
}
