import ArgumentParsing
import AssetPackFormat
import AssetPacks
import AssetPackTransport
import Foundation

/// Where a root's packs come from and whom to trust: what the client commands and the agent
/// take, and the root remembers.
struct RepositoryOptions: ParsableArguments {
    @Option("--repo", value: "URL|DIR", help: "Repository base URL (where catalog.json is), or a repository folder (a copy on a USB stick or a share; also file://); repeat for mirrors. Remembered by the root.")
    var repositories: [String]
    @Option("--public-key", value: "KEY", help: "The publisher's public key, or its .pub file. Remembered by the root.")
    var publicKey: String?
    @Option("--root-key", value: "KEY", help: "Pin the repository's root public key (or its .pub file): root mode, recommended. Remembered by the root.")
    var rootKey: String?
    @Option("--root-file", value: "FILE", help: "Start root mode from this root file (a roots/N.root.json) instead of --root-key. Remembered by the root.")
    var rootFile: String?
    @Option("--ca", value: "FILE", help: "A PEM CA file to trust (private servers). Remembered by the root.")
    var caFile: String?
    @Option("--channel", value: "NAME", help: "Follow this publishing channel (channels/NAME/catalog.json; 'default' for catalog.json). Remembered by the root; switching is an update.")
    var channel: String?
    @Option("--peer", value: "URL", help: "A LAN peer (an agent run with --share, e.g. http://10.0.0.5:7460) asked for chunks before the repository; repeat for more, 'none' forgets them. Remembered by the root.")
    var peers: [String]

    /// The repositories as URLs: a folder path becomes the `file://` URL of its absolute path.
    var repositoryURLs: [String] {
        repositories.map { $0.contains("://") ? $0 : FileTransport.url(forPath: URL(fileURLWithPath: $0).standardizedFileURL.path) }
    }

    /// Whether any of them was given.
    var isEmpty: Bool { repositories.isEmpty && publicKey == nil && rootKey == nil && rootFile == nil && caFile == nil && channel == nil && peers.isEmpty }

    /// The peers given, `none` dropped (it forgets the remembered ones).
    var peerURLs: [String] { peers.filter { $0 != "none" } }

    /// `settings` with the options given now in place of what the root remembered.
    func applied(to settings: RootSettings) throws(CLIError) -> RootSettings {
        var settings = settings
        if !repositories.isEmpty { settings.repositoryURLs = repositoryURLs }
        if let publicKey {
            do { settings.publicKey = try Ed25519PublicKey(argument: publicKey).text } catch { throw .failure("--public-key: \(error)") }
        }
        if let rootKey {
            do { settings.rootKey = try Ed25519PublicKey(argument: rootKey).text } catch { throw .failure("--root-key: \(error)") }
        }
        if let rootFile { settings.rootFile = try Self.rootFileText(rootFile) }
        if let caFile { settings.caFile = URL(fileURLWithPath: caFile).standardizedFileURL.path }
        if let channel {
            if channel != ChannelName.defaultName, let why = ChannelName.problem(with: channel) { throw .usage("--channel: \"\(channel)\" \(why)") }
            settings.channel = ChannelName.normalized(channel)
        }
        if !peers.isEmpty {
            for peer in peerURLs where !(peer.lowercased().hasPrefix("http://") || peer.lowercased().hasPrefix("https://")) {
                throw .usage("--peer takes an http:// or https:// URL (an agent's --share address) or 'none', got '\(peer)'")
            }
            settings.peers = peerURLs
        }
        return settings
    }

    /// The options that would change what `settings` holds (a value given again is no change).
    func changes(to settings: RootSettings) -> [String] {
        var changed: [String] = []
        if !repositories.isEmpty, repositoryURLs != settings.repositoryURLs { changed.append("--repo") }
        if let publicKey, (try? Ed25519PublicKey(argument: publicKey).text) != settings.publicKey { changed.append("--public-key") }
        if let rootKey, (try? Ed25519PublicKey(argument: rootKey).text) != settings.rootKey { changed.append("--root-key") }
        if let rootFile, (try? Self.rootFileText(rootFile)) != settings.rootFile { changed.append("--root-file") }
        if let caFile, URL(fileURLWithPath: caFile).standardizedFileURL.path != settings.caFile { changed.append("--ca") }
        if let channel, ChannelName.normalized(channel) != settings.channel { changed.append("--channel") }
        if !peers.isEmpty, peerURLs != settings.peers { changed.append("--peer") }
        return changed
    }

    /// The root file at `path`, checked to be a root signed by a key it names, as base64.
    static func rootFileText(_ path: String) throws(CLIError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .failure("--root-file: cannot read \(path)") }
        do { _ = try TrustedRoot(acceptedFile: [UInt8](data), file: path) } catch { throw .failure("--root-file: \(error)") }
        return data.base64EncodedString()
    }
}
