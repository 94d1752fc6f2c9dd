/// The symbol as SVG text: no script and no `style` attribute (the console's CSP allows neither),
/// only markup and presentation attributes, so it can be written inline in a page.
extension QRCode {
    /// The quiet zone, in modules, that a reader needs around the symbol (ISO/IEC 18004 §6.3.8).
    public static let quietZone = 4

    /// An `<svg>` of the symbol and its quiet zone: one unit a module (`viewBox`), a white square
    /// behind one `<path>` of the dark modules in black (whatever the page's colours, as a camera
    /// needs), edges kept sharp (`shape-rendering="crispEdges"`). It has no width or height: the
    /// page's stylesheet sizes it. `id` is written as given; `label` (its accessible name) is escaped.
    public func svg(id: String? = nil, label: String = "QR code") -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                // A run of dark modules as one rectangle, one unit high.
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let idAttribute = id.map { " id=\"\($0)\"" } ?? ""
        return "<svg xmlns=\"http://www.w3.org/2000/svg\"\(idAttribute) class=\"qr\" viewBox=\"0 0 \(side) \(side)\" "
            + "shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"\(HTMLText().escapeText(label))\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
