# cmake -DVERSION=<v> -DPREFIX=<prefix> -P find-crest.cmake: asks the Crest
# installed under PREFIX for version VERSION (cmake-package.test checks the
# versions it rejects; script mode cannot load a compatible one's targets).
find_package(Crest ${VERSION} CONFIG PATHS ${PREFIX} NO_DEFAULT_PATH)
message("Crest_FOUND=${Crest_FOUND}")
