import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// Where `AssetPackManager.shared` finds its configuration, the way Apple's reads the app's
    /// Info.plist. In this order, the first that exists is used:
    ///
    /// 1. the file the environment variable `ASSETPACKS_CONFIGURATION` names (JSON, or a
    ///    property list when its name ends in `.plist`);
    /// 2. `AssetPacks.json` beside the main executable, then in the main bundle's resources;
    /// 3. `Info.plist` beside the main executable (or the main bundle's), when it has the key
    ///    `AssetPacksRepositoryURLs`.
    ///
    /// The JSON file's keys are the `Configuration` fields: `repositoryURLs` (required),
    /// `publicKey` or `rootKey` (one required, `ed25519:BASE64`), `storageRoot` (default: the
    /// user's application-support folder + `AssetPacks/NAME`, NAME the executable's),
    /// `downloadAllowance`, `essentialDownloadAllowance`, `maxInstallSize`,
    /// `essentialMaxInstallSize`, `storageBudget` (byte counts), `allowedDomains`, `caFile`,
    /// `primaryLanguage`, `delivery` (`inProcess`, `automatic` or `agent:SOCKET`). Relative
    /// paths are relative to the file's folder. In Info.plist the same keys are prefixed
    /// `AssetPacks` (`AssetPacksRepositoryURLs`, `AssetPacksPublicKey`…), and Apple's own keys
    /// give the limits: `BAInitialDownloadRestrictions` (`BADownloadAllowance`,
    /// `BAEssentialDownloadAllowance`, `BADownloadDomainAllowList`), `BAMaxInstallSize`,
    /// `BAEssentialMaxInstallSize`.
    ///
    /// Nothing found, or a file that is not a valid configuration, is
    /// `AssetPackManagerError.invalidConfiguration` naming the file, the key and why.
    public struct ConfigurationLookup: Sendable {
        /// The environment variable that names the configuration file.
        public static let environmentVariable = "ASSETPACKS_CONFIGURATION"
        /// The configuration file's name beside the executable.
        public static let fileName = "AssetPacks.json"

        /// The environment read (the process's by default).
        public var environment: [String: String]
        /// The folder of the main executable; nil when it is unknown.
        public var executableDirectory: String?
        /// The main bundle's resources folder, searched after the executable's; nil for none.
        public var resourcesDirectory: String?
        /// NAME in the default storage root.
        public var applicationName: String

        /// A lookup in these places.
        public init(environment: [String: String], executableDirectory: String?, resourcesDirectory: String? = nil, applicationName: String = "App") {
            self.environment = environment
            self.executableDirectory = executableDirectory
            self.resourcesDirectory = resourcesDirectory
            self.applicationName = applicationName
        }

        /// The lookup `shared` makes: this process's environment, executable and main bundle.
        public static var standard: ConfigurationLookup {
            let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
            return ConfigurationLookup(environment: ProcessInfo.processInfo.environment,
                                       executableDirectory: executable.deletingLastPathComponent().path,
                                       resourcesDirectory: Bundle.main.resourceURL?.path,
                                       applicationName: executable.lastPathComponent.isEmpty ? "App" : executable.lastPathComponent)
        }

        /// The configuration from the first place that has one.
        public func load() throws -> Configuration {
            if let named = environment[Self.environmentVariable], !named.isEmpty {
                guard FileManager.default.fileExists(atPath: named) else {
                    throw AssetPackManagerError.invalidConfiguration("\(Self.environmentVariable) names \(named), which does not exist")
                }
                return try Self.configuration(fromFile: named, plistKeys: named.hasSuffix(".plist") && isInfoPlist(named), applicationName: applicationName)
            }
            var searched: [String] = []
            for folder in [executableDirectory, resourcesDirectory].compactMap({ $0 }) {
                let file = (folder as NSString).appendingPathComponent(Self.fileName)
                searched.append(file)
                if FileManager.default.fileExists(atPath: file) { return try Self.configuration(fromFile: file, plistKeys: false, applicationName: applicationName) }
            }
            for folder in [executableDirectory, resourcesDirectory].compactMap({ $0 }) {
                let file = (folder as NSString).appendingPathComponent("Info.plist")
                searched.append(file + " (key AssetPacksRepositoryURLs)")
                if FileManager.default.fileExists(atPath: file), isInfoPlist(file) {
                    return try Self.configuration(fromFile: file, plistKeys: true, applicationName: applicationName)
                }
            }
            throw AssetPackManagerError.invalidConfiguration("AssetPackManager.shared found no configuration: \(Self.environmentVariable) is not set, and none of \(searched.joined(separator: ", ")) exists; make the manager with AssetPackManager(configuration:) or add \(Self.fileName)")
        }

        /// Whether `file` is a property list with the prefixed keys.
        private func isInfoPlist(_ file: String) -> Bool {
            guard let data = FileManager.default.contents(atPath: file),
                  let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { return false }
            return plist["AssetPacksRepositoryURLs"] != nil
        }

        /// The configuration a file holds: JSON keys, or Info.plist keys (prefixed).
        static func configuration(fromFile file: String, plistKeys: Bool, applicationName: String) throws -> Configuration {
            func bad(_ key: String?, _ why: String) -> AssetPackManagerError {
                .invalidConfiguration("\(file)" + (key.map { ": key \"\($0)\"" } ?? "") + ": " + why)
            }
            guard let data = FileManager.default.contents(atPath: file) else { throw bad(nil, "cannot be read") }
            let object: Any
            do {
                object = plistKeys || file.hasSuffix(".plist") ? try PropertyListSerialization.propertyList(from: data, format: nil)
                                                                : try JSONSerialization.jsonObject(with: data)
            } catch {
                throw bad(nil, "is not \(plistKeys || file.hasSuffix(".plist") ? "a property list" : "JSON"): \(error.localizedDescription)")
            }
            guard let top = object as? [String: Any] else { throw bad(nil, "is not a dictionary of settings") }
            let prefix = plistKeys ? "AssetPacks" : ""
            func name(_ key: String) -> String { prefix.isEmpty ? key : prefix + key.prefix(1).uppercased() + key.dropFirst() }
            let folder = (file as NSString).deletingLastPathComponent
            func path(_ text: String) -> String { text.hasPrefix("/") ? text : (folder as NSString).appendingPathComponent(text) }
            func string(_ key: String, in dict: [String: Any]? = nil) throws -> String? {
                guard let value = (dict ?? top)[key] else { return nil }
                guard let text = value as? String, !text.isEmpty else { throw bad(key, "must be a non-empty string") }
                return text
            }
            func strings(_ key: String, in dict: [String: Any]? = nil) throws -> [String]? {
                guard let value = (dict ?? top)[key] else { return nil }
                guard let list = value as? [String] else { throw bad(key, "must be a list of strings") }
                return list
            }
            func bytes(_ key: String, in dict: [String: Any]? = nil) throws -> UInt64? {
                guard let value = (dict ?? top)[key] else { return nil }
                switch value {
                case is String: break
                case let n as Int where n >= 0: return UInt64(n)
                case let n as UInt64: return n
                case let d as Double where d >= 0 && d == d.rounded() && d < 1.8e19: return UInt64(d)
                default: break
                }
                throw bad(key, "must be a whole number of bytes (0 or more)")
            }
            func key(_ key: String) throws -> Ed25519PublicKey? {
                guard let text = try string(key) else { return nil }
                do { return try Ed25519PublicKey(text: text) } catch { throw bad(key, "\(error)") }
            }
            guard let urls = try strings(name("repositoryURLs")) else { throw bad(name("repositoryURLs"), "is missing (the repository's base URLs)") }
            guard !urls.isEmpty else { throw bad(name("repositoryURLs"), "names no repository") }
            let root = try string(name("storageRoot")).map(path) ?? Self.defaultStorageRoot(applicationName)
            var configuration: Configuration
            if let rootKey = try key(name("rootKey")) {
                configuration = Configuration(repositoryURLs: urls, rootKey: rootKey, storageRoot: root)
            } else if let publicKey = try key(name("publicKey")) {
                configuration = Configuration(repositoryURLs: urls, publicKey: publicKey, storageRoot: root)
            } else {
                throw bad(name("publicKey"), "is missing (or \(name("rootKey"))): the key the repository's catalog is signed with, as `assetpack keygen` prints it")
            }
            if plistKeys {
                let restrictions = top["BAInitialDownloadRestrictions"]
                if restrictions != nil, !(restrictions is [String: Any]) { throw bad("BAInitialDownloadRestrictions", "must be a dictionary") }
                let r = restrictions as? [String: Any] ?? [:]
                configuration.downloadAllowance = try bytes("BADownloadAllowance", in: r)
                configuration.essentialDownloadAllowance = try bytes("BAEssentialDownloadAllowance", in: r)
                configuration.allowedDomains = try strings("BADownloadDomainAllowList", in: r) ?? []
                configuration.maxInstallSize = try bytes("BAMaxInstallSize")
                configuration.essentialMaxInstallSize = try bytes("BAEssentialMaxInstallSize")
            } else {
                configuration.downloadAllowance = try bytes("downloadAllowance")
                configuration.essentialDownloadAllowance = try bytes("essentialDownloadAllowance")
                configuration.maxInstallSize = try bytes("maxInstallSize")
                configuration.essentialMaxInstallSize = try bytes("essentialMaxInstallSize")
                configuration.allowedDomains = try strings("allowedDomains") ?? []
            }
            configuration.storageBudget = try bytes(name("storageBudget"))
            configuration.caFile = try string(name("caFile")).map(path)
            if let primary = try string(name("primaryLanguage")) {
                guard LanguageTag(primary) != nil else { throw bad(name("primaryLanguage"), "\"\(primary)\" is not a BCP 47 language tag") }
                configuration.primaryLanguage = primary
            }
            switch try string(name("delivery")) {
            case nil, "inProcess"?: configuration.delivery = .inProcess
            case "automatic"?: configuration.delivery = .automatic
            case let other? where other.hasPrefix("agent:") && other.count > 6: configuration.delivery = .agent(socketPath: path(String(other.dropFirst(6))))
            case let other?: throw bad(name("delivery"), "\"\(other)\" is not inProcess, automatic or agent:SOCKET")
            }
            return configuration
        }

        /// The storage root when the file names none: the user's application-support folder
        /// (on Linux `$XDG_DATA_HOME`, else `~/.local/share`) + `AssetPacks/NAME`.
        static func defaultStorageRoot(_ applicationName: String) -> String {
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
            return ((base as NSString).appendingPathComponent("AssetPacks") as NSString).appendingPathComponent(applicationName)
        }
    }

    /// The manager configured without code (Apple's `shared`): from the first configuration
    /// `ConfigurationLookup.standard` finds, made on first use. Without one (or with one that is
    /// malformed, or whose root cannot be opened) it does not trap as Apple's does: every call
    /// throws `invalidConfiguration` saying what is missing (or the error `init` gave), and the
    /// status calls that cannot throw answer as for a pack that is not there.
    public static let shared = AssetPackManager.configured(by: .standard)

    /// A manager configured by `lookup`, as `shared` is: when no usable configuration is found
    /// (or the manager cannot be made with it), one whose every call throws why. Not in Apple's
    /// API (for tests and tools that look elsewhere).
    public static func configured(by lookup: ConfigurationLookup) -> AssetPackManager {
        do {
            return try AssetPackManager(configuration: lookup.load())
        } catch let error as AssetPackManagerError {
            return AssetPackManager(unavailable: error)
        } catch {
            return AssetPackManager(unavailable: .invalidConfiguration("\(error)"))
        }
    }
}
