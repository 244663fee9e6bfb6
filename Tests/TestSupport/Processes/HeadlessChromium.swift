import Foundation

/// Renders a page in headless Chromium (Debian's `chromium`, installed by
/// scripts/install-deps.sh) to a PNG screenshot, and reads back what the screenshot shows: the
/// number of distinct colours and the share of pixels that are not the page's white background.
public enum HeadlessChromium {
    /// What a screenshot shows.
    public struct Screenshot: Sendable {
        public var width: Int
        public var height: Int
        /// Distinct RGB colours among the pixels.
        public var colours: Int
        /// The share of pixels (0…1) that are not near-white.
        public var inkedShare: Double
    }

    /// The browser's path, or an error saying how to install it.
    public static func executable() throws -> String {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw TestSupportError("no headless Chromium: run scripts/install-deps.sh (Debian package chromium)")
    }

    /// Renders the file `page` at `width`×`height` with networking shut off (every host maps to
    /// nothing, so a page that fetches anything renders without it) and returns what the
    /// screenshot shows.
    public static func screenshot(of page: String, width: Int = 1000, height: Int = 1200, in directory: TemporaryDirectory) async throws -> Screenshot {
        let png = directory.file("screenshot-\(UUID().uuidString.prefix(8)).png")
        let result = try await ChildProcess.run(try executable(), [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=\(directory.file("chromium-profile"))", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--window-size=\(width),\(height)", "--screenshot=\(png)", URL(fileURLWithPath: page).absoluteString,
        ], environment: ["HOME": directory.path], timeout: .seconds(120))
        guard FileManager.default.fileExists(atPath: png) else {
            throw TestSupportError("chromium wrote no screenshot (exit \(result.status)): \(result.stderr.suffix(2000))")
        }
        return try await inspect(png: png)
    }

    /// Decodes an 8-bit RGB or RGBA, non-interlaced PNG with Python's zlib (the standard library's
    /// inflate) and counts its colours.
    static func inspect(png: String) async throws -> Screenshot {
        let script = """
        import sys, zlib, struct
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
        pos, idat, w, h, ctype = 8, b'', 0, 0, 0
        while pos < len(data):
            n, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
            if kind == b'IHDR':
                w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
                assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unsupported PNG'
            elif kind == b'IDAT': idat += body
        bpp = 3 if ctype == 2 else 4
        raw = zlib.decompress(idat); stride = w * bpp; prev = bytearray(stride); colours = set(); inked = 0; i = 0
        for y in range(h):
            f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            for x in range(0, stride, bpp):
                r, g, bl = line[x], line[x + 1], line[x + 2]
                colours.add((r, g, bl))
                if min(r, g, bl) < 235: inked += 1
            prev = line
        print(w, h, len(colours), inked / float(w * h))
        """
        let result = try await ChildProcess.run("/usr/bin/python3", ["-c", script, png], timeout: .seconds(120))
        let fields = String(decoding: result.output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard result.status == 0, fields.count == 4, let w = Int(fields[0]), let h = Int(fields[1]), let c = Int(fields[2]), let share = Double(fields[3]) else {
            throw TestSupportError("cannot read the screenshot \(png): \(result.stderr)")
        }
        return Screenshot(width: w, height: h, colours: c, inkedShare: share)
    }
}
