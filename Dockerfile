# A static, non-root image of the venue.
#   docker build -t venue .
#   docker run -p 8080:8080 -v venue:/data -e VENUE_URL=https://venue.example.com venue
# VENUE_URL is the address clients use, from which the venue's did:web DID
# derives; the default below suits a venue used from the same machine only.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make ops && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/venued ./cmd/venued \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/venued /venued
COPY --from=build --chown=nonroot:nonroot /out/data /data
USER nonroot:nonroot
# The compiled-module cache lives beside the store, so a restarted container
# loads the built-in operations in milliseconds rather than compiling them.
ENV VENUE_LISTEN=0.0.0.0:8080 VENUE_STORE=/data/venue.db VENUE_URL=http://localhost:8080 VENUE_WASM_CACHE_DIR=/data/wasm-cache
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/venued"]
