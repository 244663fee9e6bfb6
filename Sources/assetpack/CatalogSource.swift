import AssetPackCLI
import AssetPackFormat
import Foundation

/// Gets a catalog's bytes from where the user points: a repository folder (its catalog.json)
/// or a catalog file. Returns the bytes and the name to show in messages. Verification is a
/// separate step (CatalogVerifier), so other sources (URLs) only need to supply bytes.
func catalogBytes(at location: String) throws(CLIError) -> (bytes: [UInt8], name: String) {
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
