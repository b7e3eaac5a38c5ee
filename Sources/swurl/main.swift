import SwurlCLI
import SwurlCore

// Everything lives in the layers; main only runs the CLI and exits with its status.
let status = Swurl.main(arguments: ArgumentBytes.processArguments(), environment: Environment.process())
exitProcess(status)
