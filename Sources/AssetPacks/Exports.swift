// `import AssetPacks` alone gives exactly the outside types that the client's public API takes,
// returns or throws; nothing else of the formats (and no packaging code, which the client does
// not link) comes with it.
@_exported import struct AssetPackFormat.Ed25519PublicKey
@_exported import enum AssetPackFormat.DownloadPolicy
@_exported import enum AssetPackFormat.InstallationEventType
@_exported import enum AssetPackFormat.Platform
@_exported import enum AssetPackFormat.CatalogError
@_exported import enum AssetPackTransport.TransportError
