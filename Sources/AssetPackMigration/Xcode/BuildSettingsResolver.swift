/// Works out a target's effective build settings for one configuration, in Xcode's order:
/// the project's `.xcconfig`, the project's settings, the target's `.xcconfig`, the target's
/// settings — each layer overriding the ones before. Each result keeps the file and line that set it.
public struct BuildSettingsResolver {
    public let project: XcodeProject
    private var configFiles: [String: XCConfigFile] = [:]
    /// Problems met while reading `.xcconfig` files (missing includes, unreadable files).
    public private(set) var problems: [(file: String, line: Int, message: String)] = []

    public init(project: XcodeProject) { self.project = project }

    /// The effective settings of `target` in the configuration named `configuration`.
    public mutating func settings(for target: XcodeTarget, configuration: String) -> [String: BuildSetting] {
        var out: [String: BuildSetting] = [:]
        if let p = project.projectConfigurations.first(where: { $0.name == configuration }) { apply(p, to: &out) }
        if let t = target.configurations.first(where: { $0.name == configuration }) { apply(t, to: &out) }
        return out
    }

    /// The project-level settings alone (for projects without targets, or settings no target overrides).
    public mutating func projectSettings(configuration: String) -> [String: BuildSetting] {
        var out: [String: BuildSetting] = [:]
        if let p = project.projectConfigurations.first(where: { $0.name == configuration }) { apply(p, to: &out) }
        return out
    }

    private mutating func apply(_ c: XcodeBuildConfiguration, to out: inout [String: BuildSetting]) {
        if let path = c.baseConfigurationPath {
            for (k, v) in configFile(path).effective { out[k] = v }
        }
        for (k, v) in c.settings { out[k] = v }
    }

    private mutating func configFile(_ path: String) -> XCConfigFile {
        if let f = configFiles[path] { return f }
        let f = XCConfigFile(path: path)
        configFiles[path] = f
        problems += f.problems
        return f
    }

    /// The configuration the audit reports a target under: Release when there is one, else the first.
    public static func preferredConfiguration(of target: XcodeTarget, in project: XcodeProject) -> String? {
        let names = target.configurations.map(\.name) + project.projectConfigurations.map(\.name)
        return names.first { $0 == "Release" } ?? names.first
    }
}
