# A static, non-root image of the venue.
#   docker build -t venue .
#   docker run -p 8080:8080 -v venue:/data venue
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
ENV VENUE_LISTEN=0.0.0.0:8080 VENUE_STORE=/data/venue.db
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/venued"]
