import ArgumentParsing
import AssetPackFormat
import AssetPackTransport
import Foundation

/// Gets a catalog's bytes from where the user points: a repository folder (its catalog.json)
/// or a catalog file. Returns the bytes and the name to show in messages. Verification is a
/// separate step (CatalogVerifier), so other sources (URLs) only need to supply bytes.
func catalogBytes(at location: String, caFile: String? = nil) throws(CLIError) -> (bytes: [UInt8], name: String) {
    let lower = location.lowercased()
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
        // A repository URL (its catalog.json) or the URL of a catalog file.
        let url = lower.hasSuffix(".json") ? location : (location.hasSuffix("/") ? location : location + "/") + CatalogFormat.fileName
        do {
            let response = try CurlTransport(caFile: caFile).send(HTTPRequest(.get, url: url, timeout: .seconds(60))).requireSuccess()
            return (response.body, url)
        } catch { throw .failure("\(error)") }
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else {
        throw .failure("\(location): no such repository folder or catalog file")
    }
    let path = isDirectory.boolValue ? "\(location)/\(CatalogFormat.fileName)" : location
    guard let data = FileManager.default.contents(atPath: path) else {
        throw .failure("\(path): cannot read the catalog (is \(location) a repository?)")
    }
    return ([UInt8](data), path)
}
