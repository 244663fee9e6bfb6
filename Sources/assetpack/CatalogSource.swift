import ArgumentParsing
import AssetPackFormat
import AssetPackTransport
import Foundation

/// Gets a catalog's bytes from where the user points: a repository folder (its catalog.json)
/// or a catalog file. Returns the bytes and the name to show in messages. Verification is a
/// separate step (CatalogVerifier), so other sources (URLs) only need to supply bytes.
/// `file` names another file of the repository (`root.json`, `roots/1.root.json`): then
/// `location` must be a repository folder or URL.
func catalogBytes(at location: String, caFile: String? = nil, file: String = CatalogFormat.fileName) throws(CLIError) -> (bytes: [UInt8], name: String) {
    let lower = location.lowercased()
    let other = file != CatalogFormat.fileName
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
        // A repository URL (its catalog.json) or the URL of a catalog file.
        if other && lower.hasSuffix(".json") { throw .failure("\(location): --root-key needs a repository URL, not a file's") }
        let url = lower.hasSuffix(".json") ? location : (location.hasSuffix("/") ? location : location + "/") + file
        do {
            let response = try CurlTransport(caFile: caFile).send(HTTPRequest(.get, url: url, timeout: .seconds(60))).requireSuccess()
            return (response.body, url)
        } catch { throw .failure("\(error)") }
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else {
        throw .failure("\(location): no such repository folder or catalog file")
    }
    if other && !isDirectory.boolValue { throw .failure("\(location): --root-key needs a repository folder, not a file") }
    let path = isDirectory.boolValue ? "\(location)/\(file)" : location
    guard let data = FileManager.default.contents(atPath: path) else {
        let trustFile = other && !file.hasSuffix(CatalogFormat.fileName)
        throw .failure("\(path): cannot read \(other ? file : "the catalog") (is \(location) a repository\(trustFile ? " with a root" : file != CatalogFormat.fileName ? " with that channel" : "")?)")
    }
    return ([UInt8](data), path)
}
